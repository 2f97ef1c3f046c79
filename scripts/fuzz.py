"""Fuzz lint and fix with generated programs; save what breaks as a regression fixture.

    python scripts/fuzz.py --examples 2000 [--seed N] [--kind grammar|node|torch|all]

Programs come from ``hypothesmith`` (PyPI): ``grammar`` draws whole modules from Python's grammar,
``node`` from libcst's node types, ``torch`` mixes grammar-drawn statements with PyTorch idioms the
rules look at (saves, in-place writes, no_grad blocks, autograd Functions), so that the rules and
their fixes run among odd code rather than only the parser. Each program must:

- lint without an exception escaping ``lint_source`` and without an IPL903 internal error (libcst
  failing on valid code is IPL903 too, but counted apart: ``is_libcst_limitation``);
- give positions inside the text, and fix edits that apply;
- fix (unsafe fixes included) to a text that parses, that a second fix run leaves unchanged, and,
  when Python compiles the program, with no fix round dropped (on code Python refuses, such as
  `y += *x`, a fix may be refused, and is counted apart).

The first failure is shrunk by hypothesis, printed, and written to
``tests/robustness/fuzz_regressions/`` (``--save``), where ``test_fuzz.py`` replays every file.
A bounded run of the same checks is part of the test suite (``test_fuzz.py``, 50 examples).
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import re
import sys
import time
import warnings
from collections import Counter
from pathlib import Path

import hypothesmith
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from inplace_lint.api import lint_source
from inplace_lint.fixes import apply_edits, fix_text
from inplace_lint.rules import all_rules
from inplace_lint.settings import Settings

REGRESSIONS = ROOT / "tests" / "robustness" / "fuzz_regressions"
# No "explain" phase: it traces every line of every run (sys.settrace), which slows a long run
# several times over for a report this script does not use.
FUZZ_PHASES = tuple(p for p in Phase if p is not Phase.explain)
KINDS = ("grammar", "node", "torch")
STATS: Counter = Counter()  # what the programs exercised, printed at the end of a run

warnings.filterwarnings("ignore", category=SyntaxWarning)
warnings.filterwarnings("ignore", category=DeprecationWarning)


def fuzz_settings() -> Settings:
    return Settings(enabled=frozenset(all_rules()))


# --- the programs --------------------------------------------------------------------------------

# Relative indentation: each template is a block of statements at the body's level.
TORCH_TEMPLATES = (
    "y = torch.sigmoid({e})\ny += {e}\ny.sum().backward()",
    "y = torch.exp(x)\ny[{e}] = 0\ny.sum().backward()",
    "h = self.conv({e})\nh += F.relu(h)\nreturn h",
    "w = torch.zeros(3, requires_grad=True)\nw.add_({e})",
    "with torch.no_grad():\n    w.mul_({e})",
    "y = torch.tanh(x)\nz = y.detach()\nz.mul_({e})\ny.sum().backward()",
    "a, b = x.split({e})\na.add_(1)",
    "y = nn.ReLU(inplace=True)(torch.sigmoid(x))\ny.mean().backward()",
    "p = paddle.to_tensor({e}, stop_gradient=False)\np.scale_(2)",
    "out = torch.empty(3)\ntorch.add(x, {e}, out=out)",
    "x.data.mul_({e})\nloss = (x * 2).sum()\nopt.step()\nloss.backward()",
    "ctx.x = x\nx.mul_({e})\nreturn x",
    "if {e}:\n    y = torch.sigmoid(x)\nelse:\n    y = x\ny += 1",
    "for i in range({e}):\n    x = torch.sigmoid(x)\n    x += i",
    "z = {e}\nz.add_(1)\nz.sum().backward()",
)
ATOMS = (
    "x",
    "1",
    "2.5",
    "-x",
    "x[0]",
    "(x, 1)",
    "torch.ones(3)",
    "lambda: x",
    "f'{{x}}'",
    "None",
    "...",
    "x if x else 1",
    "[i for i in x]",
    "*x",
    "x @ x",
    "not x",
    "await x",
    "(yield x)",
)
TORCH_HEADER = (
    "import torch\nimport paddle\nfrom torch import nn\nfrom torch.nn import functional as F\n\n\n"
)
_LINES = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def _indent(block: str, prefix: str) -> str:
    return "".join(prefix + line for line in _LINES.findall(block))


@functools.cache
def _grammar_modules() -> st.SearchStrategy[str]:
    return hypothesmith.from_grammar("file_input")  # builds a Lark parser: once, not per draw


@st.composite
def torch_programs(draw) -> str:
    """PyTorch idioms the rules look at, with grammar-drawn statements between them."""
    chunks = []
    for _ in range(draw(st.integers(1, 4))):
        template = draw(st.sampled_from(TORCH_TEMPLATES))
        chunks.append(template.format(e=draw(st.sampled_from(ATOMS))) + "\n")
        if draw(st.booleans()):
            chunks.append(draw(_grammar_modules()) + "\n")
    body = "".join(chunks)
    kind = draw(st.sampled_from(["function", "method", "autograd"]))
    if kind == "function":
        return f"{TORCH_HEADER}def forward(x, opt=None):\n{_indent(body, '    ')}"
    if kind == "method":
        head = "class Net(nn.Module):\n    def forward(self, x, opt=None):\n"
    else:
        head = "class Fn(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n"
    return f"{TORCH_HEADER}{head}{_indent(body, ' ' * 8)}"


def programs(kind: str) -> st.SearchStrategy[str]:
    if kind == "grammar":
        return _grammar_modules()
    if kind == "node":
        return hypothesmith.from_node()
    if kind == "torch":
        return torch_programs()
    return st.one_of(*(programs(k) for k in KINDS))


# --- the checks ----------------------------------------------------------------------------------


def problems(source: str) -> list[str]:
    """Everything wrong with how the linter treats ``source``; empty when all is well."""
    found: list[str] = []
    config = fuzz_settings()
    diagnostics = lint_source(source, "fuzz.py", config)
    STATS["programs"] += 1
    STATS.update({f"with {d.code}" for d in diagnostics})
    rows = re.split(r"\r\n|\r|\n", source)
    for diag in diagnostics:
        if diag.code == "IPL903" and is_libcst_limitation(diag.message):
            STATS["libcst cannot parse (valid Python)"] += 1
        elif diag.code == "IPL903":
            found.append(f"internal error: {diag.message}\n{diag.detail or ''}")
        start, end = diag.span.start, diag.span.end
        if not (1 <= start.row <= len(rows) + 1 and start <= end and start.column >= 1):
            found.append(f"{diag.code} has a position outside the text: {diag.span}")
        if diag.fix is not None:
            try:
                apply_edits(source, diag.fix.edits)
            except ValueError as error:
                found.append(f"{diag.code} has a fix that does not apply: {error}")
    outcome = fix_text(source, "fuzz.py", config, unsafe=True)
    STATS["fixed"] += outcome.text != source
    STATS["fixes applied"] += len(outcome.applied)
    if outcome.error and _compiles(source):
        found.append(f"fix error: {outcome.error}")
    elif outcome.error:  # e.g. `y += *x`: parses, but Python refuses it; the fix was refused too
        STATS["fix refused on code Python does not compile"] += 1
    if outcome.text != source:
        again = fix_text(outcome.text, "fuzz.py", config, unsafe=True)
        if again.text != outcome.text:
            found.append("fixing twice changed the text again (fixes are not settled)")
    return found


def _compiles(source: str) -> bool:
    """Python compiles it (compiled, never run): the fixes of valid code must all apply."""
    try:
        compile(source, "fuzz.py", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def is_libcst_limitation(message: str) -> bool:
    """libcst failing on code Python parses (e.g. Instagram/LibCST#1061): reported to the user as
    IPL903, and counted apart here, since no change of ours can make libcst parse it."""
    return message.startswith("Internal error in the parser (libcst)")


def save_regression(source: str, details: list[str], directory: Path = REGRESSIONS) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    path = directory / f"fuzz_{digest}.py.txt"  # .txt: the linter must not lint its own fixtures
    path.write_bytes(source.encode("utf-8", "surrogatepass"))
    (directory / f"fuzz_{digest}.why.txt").write_text("\n\n".join(details) + "\n")
    return path


def run(examples: int, kind: str, seed_value: int | None, save: Path | None) -> int:
    failure: dict[str, object] = {}
    progress = {"programs": 0, "start": time.perf_counter()}

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        print_blob=True,
        phases=FUZZ_PHASES,
    )
    @given(programs(kind))
    def check(source: str) -> None:
        progress["programs"] += 1
        if progress["programs"] % 100 == 0:
            elapsed = time.perf_counter() - progress["start"]
            print(f"{progress['programs']} programs, {elapsed:.0f} s", file=sys.stderr, flush=True)
        found = problems(source)
        if found:
            failure["source"], failure["problems"] = source, found
            raise AssertionError("\n".join(found))

    if seed_value is not None:
        check = seed(seed_value)(check)
    try:
        check()
    except AssertionError:
        source, found = failure["source"], failure["problems"]
        print(f"FAILED on:\n{source!r}\n" + "\n".join(found))  # type: ignore[arg-type]
        if save is not None:
            print(f"saved as {save_regression(source, found, save)}")  # type: ignore[arg-type]
        return 1
    print(f"{examples} {kind} examples: no crash, no internal error, fixes parse and settle")
    print(", ".join(f"{key}: {value}" for key, value in sorted(STATS.items())))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=200)
    parser.add_argument("--kind", choices=[*KINDS, "all"], default="all")
    parser.add_argument("--seed", type=int)
    parser.add_argument("--save", type=Path, default=REGRESSIONS)
    args = parser.parse_args(argv)
    return run(args.examples, args.kind, args.seed, args.save)


if __name__ == "__main__":
    sys.exit(main())
