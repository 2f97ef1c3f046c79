"""The prefilter must never cost a finding: what it skips or blanks cannot change a diagnostic.

Proven here on every fixture (as written, and padded with code the triage blanks), on synthetic
programs for each way an unseeded function can still matter, and on the structure of the reduced
text (same rows, same columns, valid Python) over this repository's own sources.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest
from fixturelib import REPO_ROOT, all_fixtures

from inplace_lint import prefilter
from inplace_lint.api import lint_source
from inplace_lint.rules import all_rules
from inplace_lint.runner import lint_python
from inplace_lint.settings import DEFAULT_SETTINGS, Settings

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

FIXTURES = all_fixtures()
EXPECTING = [f for f in FIXTURES if any(f.expected.values())]


def _name(fixture) -> str:
    return fixture.path.relative_to(REPO_ROOT).as_posix()


# Every rule, the risky tier too: the plan does not depend on the selection, and what it must not
# change includes the rules that are off by default.
EVERY_RULE = Settings(enabled=frozenset(all_rules()))


def _same_as_full(text: str, settings: Settings = EVERY_RULE) -> str:
    """Lint through the prefilter and in full; assert equal; return the plan's kind."""
    result, kind = lint_python(text, "t.py", settings)
    assert result.diagnostics == lint_source(text, "t.py", settings)
    return kind


@pytest.mark.parametrize("fixture", EXPECTING, ids=_name)
def test_every_expecting_fixture_passes_the_filters(fixture) -> None:
    assert prefilter.mentions_framework(fixture.text)
    assert prefilter.plan(fixture.text).kind != "skip"


@pytest.mark.parametrize("fixture", FIXTURES, ids=_name)
def test_fixture_diagnostics_unchanged(fixture) -> None:
    _same_as_full(fixture.text)


def _filler(n: int) -> str:
    """Realistic code with no in-place syntax and no link to the fixture: the triage blanks it."""
    parts = []
    for i in range(n):
        parts.append(
            textwrap.dedent(
                f'''
                class FillerConfig{i}:
                    """A configuration holder.

                    It only stores values.
                    """

                    hidden_size = {i}

                    def to_dict(self):
                        return {{"hidden_size": self.hidden_size, "name": "filler{i}"}}


                def filler_total_{i}(values):
                    total = 0.0
                    for value in values:
                        total = total + value * {i}
                    return total
                '''
            )
        )
    return "".join(parts)


def _insert_before_first_def(text: str, filler: str) -> str:
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.startswith(("def ", "class ", "@")):
            return "".join(lines[:i]) + filler + "\n\n" + "".join(lines[i:])
    return text + filler


@pytest.mark.parametrize("fixture", EXPECTING, ids=_name)
def test_padded_fixture_is_reduced_and_unchanged(fixture) -> None:
    filler = _filler(12)
    for padded in (fixture.text + "\n\n" + filler, _insert_before_first_def(fixture.text, filler)):
        assert prefilter.plan(padded).kind == "reduced"
        assert _same_as_full(padded) == "reduced"


def test_flag_positions_match_the_knowledge_tables() -> None:
    """Every torch module or function that writes in place when a flag is set is a candidate
    when it gets that flag, by keyword or by position."""
    surface = tomllib.loads((REPO_ROOT / "inplace_lint/knowledge/torch_surface.toml").read_text())
    checked = 0
    for section, key in (("modules", "init"), ("functions", "params")):
        for qualname, entry in surface[section].items():
            params = entry.get(key, [])
            for flag in ("inplace", "max_norm"):
                if flag in params:
                    name = qualname.rsplit(".", 1)[-1]
                    assert flag in prefilter.FLAG_KEYWORDS
                    assert prefilter.FLAG_POSITIONS.get(name, 99) <= params.index(flag), name
                    checked += 1
    assert checked >= 30


# --------------------------------------------------------------------------------------------
# Synthetic programs: each way a unit without in-place syntax can still matter

HEADER = "import torch\nimport torch.nn as nn\n\n\n"


def _program(body: str, filler: int = 8) -> str:
    return HEADER + textwrap.dedent(body) + "\n\n" + _filler(filler)


def _kept(text: str, snippet: str) -> bool:
    plan = prefilter.plan(text)
    assert plan.kind == "reduced", plan
    return snippet in plan.text


CASES = {
    "a module list built by appending a local bound to a local class": (
        """
        class Down(nn.Module):
            def __init__(self, c):
                super().__init__()
                self.conv = nn.Conv2d(c, c, 3)

            def forward(self, x):
                return self.conv(x)


        class Encoder(nn.Module):
            def __init__(self, c):
                super().__init__()
                self.stages = nn.ModuleList()
                for _ in range(2):
                    stage = Down(c)
                    self.stages.append(stage)

            def forward(self, h):
                for stage in self.stages:
                    h = stage(h)
                    h *= torch.sigmoid(h)
                return h
        """,
        "return self.conv(x)",
    ),
    "a chain of attributes read through instances of two local classes": (
        """
        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.dense = nn.Linear(4, 4)

        class Encoder(nn.Module):
            def __init__(self):
                super().__init__()
                self.blocks = nn.ModuleList([Block() for _ in range(2)])

        def edit(i):
            model = Encoder()
            model.blocks[i].dense.weight[:, 0] -= 1.0
        """,
        "self.dense = nn.Linear(4, 4)",
    ),
    "helper writes into its argument by item; a local dict beside it is no candidate": (
        """
        def fill(buf, h):
            names = {}
            names["first"] = 0
            buf[:, 0] = h

        def train():
            w = torch.randn(3, 3, requires_grad=True)
            buf = torch.zeros(3, 3)
            y = w * buf
            fill(buf, torch.ones(3))
            y.sum().backward()
        """,
        "fill(buf, torch.ones(3))",
    ),
    "helper writes its argument; the caller has no in-place syntax": (
        """
        def scale(t):
            t.mul_(2)

        def train():
            x = torch.randn(3, requires_grad=True)
            y = torch.sigmoid(x)
            scale(y)  # the write is reported here
            y.sum().backward()
        """,
        "scale(y)  # the write",
    ),
    "in-place activation built in __init__, used in forward": (
        """
        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.act = nn.ReLU(inplace=True)

            def forward(self, x):
                y = torch.sigmoid(x)
                return self.act(y)  # in-place on a saved output
        """,
        "return self.act(y)",
    ),
    "local module whose forward writes its input, called by another module": (
        """
        class Inner(nn.Module):
            def forward(self, x):
                x.add_(1)
                return x

        class Outer(nn.Module):
            def __init__(self):
                super().__init__()
                self.inner = Inner()

            def forward(self, x):
                h = torch.exp(x)
                return self.inner(h)  # writes h, saved by exp
        """,
        "return self.inner(h)",
    ),
    "a caller under no_grad decides whether the writer is guarded": (
        """
        def update(w):
            w.add_(1)

        @torch.no_grad()
        def step(w):
            update(w)
        """,
        "    update(w)",
    ),
    "a callee's summary (it returns a saved output) feeds the writer": (
        """
        def act(x):
            return torch.sigmoid(x)

        def run():
            x = torch.randn(3, requires_grad=True)
            y = act(x)
            y += 1
            y.sum().backward()
        """,
        "return torch.sigmoid(x)",
    ),
    "an instance's attribute that __init__ built, read outside the class": (
        """
        class Holder(nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = nn.Linear(4, 4)

        def edit():
            m = Holder()
            m.lin.weight.add_(1.0)  # a leaf written with grad on
        """,
        "self.lin = nn.Linear(4, 4)",
    ),
    "a container filled with add_module in __init__, called in forward": (
        """
        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.act = nn.ReLU(inplace=True)

            def forward(self, x):
                return self.act(x)

        class Unit(nn.Module):
            def __init__(self):
                super().__init__()
                self.skip = nn.Conv2d(2, 2, 1)
                self.body = nn.Sequential()
                self.body.add_module("b1", Block())

            def forward(self, x):
                identity = self.skip(x)
                return self.body(x) + identity  # the block writes x, saved by skip
        """,
        "return self.body(x) + identity",
    ),
    "a module-level alias of a Function's apply: its callers decide IPL106": (
        """
        class Shift(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x -= x.max()
                return x

            @staticmethod
            def backward(ctx, g):
                return g

        shift = Shift.apply

        class Layer(nn.Module):
            def forward(self, x):
                return shift(x)  # x is not read again: no IPL106
        """,
        "return shift(x)",
    ),
    "an update method reads what forward left on self (forward runs before it)": (
        """
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.enc = nn.Linear(4, 4)
                self.gen = nn.Linear(4, 4)
                self.opt = torch.optim.Adam(self.parameters())

            def forward(self, x):
                self.fake = self.gen(self.enc(x))

            def update(self):
                self.fake.sum().backward(retain_graph=True)
                self.opt.step()
                (self.gen(self.fake) ** 2).sum().backward()
        """,
        "self.fake = self.gen(self.enc(x))",
    ),
    "a training step runs methods that take no argument": (
        """
        class GAN(nn.Module):
            def __init__(self):
                super().__init__()
                self.netG = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 4))
                self.netD = nn.Linear(4, 1)
                self.opt_g = torch.optim.Adam(self.netG.parameters())

            def forward(self):
                self.fake = self.netG(self.real)

            def backward_d(self):
                self.netD(self.fake).mean().backward()

            def optimize(self):
                self.forward()
                self.netD(self.fake).mean().backward(retain_graph=True)
                self.opt_g.step()
                self.backward_d()
        """,
        "self.netD(self.fake).mean().backward()",
    ),
    "a parameter's name given a plain tensor outside __init__ (IPL014)": (
        """
        class Mix(nn.Module):
            def __init__(self, n):
                super().__init__()
                w = nn.Parameter(torch.ones(n))
                self.layer_weights = w

            def forward(self, layers):
                self.layer_weights = torch.softmax(self.layer_weights, 0)
                return layers
        """,
        "self.layer_weights = torch.softmax(self.layer_weights, 0)",
    ),
    "a module built by a method that __init__ calls": (
        """
        class Gate(nn.Module):
            def __init__(self, c):
                super().__init__()
                self._build_layers(c)

            def _build_layers(self, c):
                self.act = nn.ReLU(inplace=True)

            def forward(self, x):
                return self.act(torch.sigmoid(x))
        """,
        "return self.act(torch.sigmoid(x))",
    ),
    "a chain of attributes read in a helper given its caller's instance": (
        # knowledge-neurons#14: the helper names no class; its caller builds the model
        """
        class Output(nn.Module):
            def __init__(self):
                super().__init__()
                self.dense = nn.Linear(4, 4)

        class Encoder(nn.Module):
            def __init__(self):
                super().__init__()
                self.layer = nn.ModuleList([Output() for _ in range(2)])

        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.encoder = Encoder()

        def edit(model, pos, delta):
            model.encoder.layer[pos].dense.weight[:, pos] -= delta

        def main():
            model = Model()
            edit(model, 1, 0.5)
        """,
        "self.dense = nn.Linear(4, 4)",
    ),
    "a module chosen through an attribute that names its class (two attribute steps)": (
        # yolov7's End2End: `self.patch_model = A if ... else B; self.end2end = self.patch_model()`
        """
        class Head(nn.Module):
            def forward(self, x):
                scores = x[:, 1:]
                scores *= x[:, :1]
                return scores

        class End2End(nn.Module):
            def __init__(self, model, fused=None):
                super().__init__()
                self.model = model
                self.patch_model = Head if fused is None else nn.Identity
                self.end2end = self.patch_model()

            def forward(self, x):
                return self.end2end(self.model(x))
        """,
        "return self.end2end(self.model(x))",
    ),
    "a base __init__ calls a method a subclass overrides": (
        """
        class Base(nn.Module):
            def __init__(self, c):
                super().__init__()
                self.c = c
                self._init_layers()

            def _init_layers(self):
                self.conv = nn.Conv2d(self.c, self.c, 1)

        class Head(Base):
            def _init_layers(self):
                self.conv = nn.Sequential(nn.Conv2d(self.c, self.c, 1), nn.Sigmoid())

            def forward(self, x):
                return F.relu(self.conv(x), inplace=True)
        """,
        "self.conv = nn.Sequential(nn.Conv2d(self.c, self.c, 1), nn.Sigmoid())",
    ),
    "a base method calls `self.m()` that only a subclass defines, and writes": (
        """
        class Transform(nn.Module):
            def forward(self, x):
                return self._call(x)

        class Scaled(Transform):
            def _call(self, x):
                g = torch.sigmoid(x)
                g *= 2
                return g

        class Wrapper(nn.Module):
            def __init__(self):
                super().__init__()
                self.t = Scaled()

            def forward(self, x):
                return self.t(x)
        """,
        "return self._call(x)",
    ),
    "a subclass's method calling a step helper it inherits": (
        # p-christ's SAC-Discrete: `update_all_parameters` hands its losses to the base class's
        # `take_optimisation_step`
        """
        class BaseAgent:
            def take_optimisation_step(self, optimizer, loss):
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()

        class Agent(BaseAgent):
            def update_all_parameters(self, critic_loss, actor_loss):
                self.take_optimisation_step(self.critic_optimizer, critic_loss)
                self.take_optimisation_step(self.actor_optimizer, actor_loss)
        """,
        "self.take_optimisation_step(self.critic_optimizer, critic_loss)",
    ),
    "a method calling a writing method of an object its constructor was given": (
        # disentangling-vae#62: `Trainer(loss_f=FactorKLoss(...))`, `self.loss_f.call_optimize(...)`
        """
        class FactorLoss:
            def call_optimize(self, data, model, optimizer):
                loss = model(data).sum()
                loss.backward(retain_graph=True)
                optimizer.step()

        class Trainer:
            def __init__(self, loss_f):
                self.loss_f = loss_f

            def train_iteration(self, data, model, optimizer):
                self.loss_f.call_optimize(data, model, optimizer)

        def main(model, optimizer, data):
            Trainer(FactorLoss()).train_iteration(data, model, optimizer)
        """,
        "self.loss_f.call_optimize(data, model, optimizer)",
    ),
    "a module calling an instance of a subclass that inherits a writing forward": (
        """
        class Transform(nn.Module):
            def forward(self, x):
                y = torch.sigmoid(x)
                y *= 2
                return y

        class Scaled(Transform):
            pass

        class Wrapper(nn.Module):
            def __init__(self):
                super().__init__()
                self.t = Scaled()

            def forward(self, x):
                return self.t(x)
        """,
        "return self.t(x)",
    ),
    "an item write spelled as a `__setitem__` call": (
        """
        def attach(data, size):
            data.__setitem__("c_size", torch.tensor([size]))
            return data
        """,
        'data.__setitem__("c_size", torch.tensor([size]))',
    ),
    "a function calling a writing method of a submodule of an instance it builds": (
        # paddle21 b10: `net.rope.refresh(...)` between a forward and its backward, where
        # `Net.__init__` builds the `Rotary` whose `refresh` copies into its cache
        """
        class Rotary(nn.Module):
            def refresh(self, factor):
                self.scale.copy_(torch.full_like(self.scale, factor))

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.rope = Rotary()

        def main(x):
            net = Net()
            out = net(x)
            net.rope.refresh(2.0)
            out.sum().backward()
        """,
        "net.rope.refresh(2.0)",
    ),
    "a layer subclass given a plain tensor for its own weight (IPL014)": (
        """
        class MaskedLinear(nn.Linear):
            def set_mask(self, mask):
                self.weight = self.weight * mask
        """,
        "self.weight = self.weight * mask",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_units_that_matter_are_kept(case: str) -> None:
    body, snippet = CASES[case]
    text = _program(body)
    assert _kept(text, snippet)
    assert _same_as_full(text) == "reduced"


def test_unrelated_code_is_stubbed_rows_and_columns_kept() -> None:
    text = _program(CASES["helper writes its argument; the caller has no in-place syntax"][0])
    plan = prefilter.plan(text)
    assert plan.kind == "reduced"
    assert "def filler_total_0(): pass" in plan.text
    assert "class FillerConfig0: pass" in plan.text
    original, reduced = text.splitlines(), plan.text.splitlines()
    assert len(original) == len(reduced)
    for before, after in zip(original, reduced):
        assert after in (before, "") or after.strip().endswith(": pass")
    ast.parse(plan.text)


def test_class_shape_is_kept_when_only_its_kind_matters() -> None:
    text = _program(
        """
        class Base(nn.Module):
            \"\"\"A long docstring that is blanked.\"\"\"

            size = 3

            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(3, 3)

            def forward(self, x):
                return self.proj(x)

            def describe(self):
                return "base"

        def build():
            x = torch.randn(3, requires_grad=True)
            m = Base()
            y = m(x)
            y += 1
            y.sum().backward()
        """
    )
    plan = prefilter.plan(text)
    assert "class Base(nn.Module):" in plan.text
    assert "def describe(): pass" in plan.text
    assert "A long docstring" not in plan.text
    assert _same_as_full(text) == "reduced"


def test_noqa_rows_are_never_blanked() -> None:
    text = _program(
        """
        def unrelated():
            return 1  # noqa: IPL001

        def train():
            x = torch.randn(3, requires_grad=True)
            x.add_(1)
        """
    )
    plan = prefilter.plan(text)
    assert "return 1  # noqa: IPL001" in plan.text
    assert _same_as_full(text) == "reduced"


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("import os\n\ndef f(x):\n    x += 1\n", "skip"),  # no framework
        ("import torch\n\ndef f(x):\n    return x + 1\n", "skip"),  # no candidate
        ("import torch\n\ndef f(x:\n    x.add_(1)\n", "full"),  # a syntax error: libcst reports it
        ("import os\n\ndef f(:\n", "full"),  # a syntax error without torch: still reported
        ("import torch\rdef f(x):\r    x.add_(1)\r", "full"),  # lone CR line ends
    ],
)
def test_plan_kinds(text: str, kind: str) -> None:
    assert prefilter.plan(text).kind == kind
    _same_as_full(text)


def test_not_candidates() -> None:
    """Forms that cannot write a tensor do not make a unit a seed."""
    for text in [
        "import torch\n\ndef f(d, acc):\n    d['key'] = 1\n    acc += (1,)\n    s = ''\n    s += 'x'\n",
        "import torch\n\ndef f():\n    m = torch.nn.Dropout(0.1)\n",
    ]:
        assert prefilter.plan(text).kind == "skip", text


def test_writes_into_numbers_and_containers_are_not_candidates() -> None:
    """A name a function only ever binds to a number literal (`n = 0`, `n += 1`) or to a new
    list, dict or set (`d = {}`, `d[k] = v`, `d += more`) is no tensor: writing into it is no
    candidate."""
    for body in [
        "n = 0\n    n += 1\n    n -= 2.5",
        "d = {}\n    d[x] = y",
        "d = dict()\n    d[x] = y\n    out = []\n    out += y\n    out[0] = x",
        "d = [None] * 3\n    d[1] = x\n    e: dict = {}\n    e[x] = y",
        "s = {x for x in y}\n    t: torch.Tensor\n    m = {k: v for k, v in y}\n    m[x] = y",
    ]:
        text = f"import torch\n\ndef f(x, y):\n    {body}\n"
        assert prefilter.plan(text).kind == "skip", body


def test_writes_into_names_that_may_be_tensors_stay_candidates() -> None:
    for body in [
        "d = {}\n    d = torch.zeros(3)\n    d[x] = y",  # rebound to a tensor
        "d = x\n    d[0] = y",  # an alias of an argument
        "x = []\n    x[0] = y",  # also a parameter
        "total = 0\n    total += x\n    total += 1",  # a tensor after `+= x`
        "n = 0\n    n += x",  # the same
        "d = {}\n    for d in y:\n        d[0] = x",  # a loop target
        "d = {}\n    with x as d:\n        d[0] = y",  # a `with` target
        "d = {}\n    a, d = y\n    d[0] = x",  # an unpacking
        "d = {}\n    del d\n    d[0] = x",  # then a global
        "global d\n    d = {}\n    d[0] = x",  # a module's name, bound elsewhere too
        "d[0] = x",  # bound outside the function
        "d = {}\n    def g(d):\n        d[0] = x",  # another `d` in another scope
        "d = {}\n    try:\n        pass\n    except E as d:\n        d[0] = x",
        "d = {}\n    import d\n    d[0] = x",
        "d = {}\n    [d := y]\n    d[0] = x",  # the walrus binds in the function
    ]:
        text = f"import torch\n\ndef f(x, y):\n    {body}\n"
        assert prefilter.plan(text).kind != "skip", body
        _same_as_full(text)


def test_candidates() -> None:
    for snippet in [
        "x[0] = 1",
        "x[i], y = 1, 2",
        "x.data = y",
        "x += 1",
        "torch.add(a, b, out=c)",
        "F.relu(x, inplace=True)",
        "nn.ReLU(True)",
        "nn.Dropout(0.1, True)",
        "nn.Embedding(3, 4, max_norm=1.0)",
        "F.dropout(x, 0.1, True, True)",
        "x.numpy()",
        "torch.from_numpy(a)",
        "opt.step()",
        "x.set_value(y)",
        "x.__iadd__(y)",
        "nn.init.zeros_(w)",
        "for x[0] in y: pass",
    ]:
        text = f"import torch\n\ndef f(x, y, a, b, c, w, opt, i):\n    {snippet}\n"
        assert prefilter.plan(text).kind != "skip", snippet


def test_autograd_function_methods_are_all_seeds() -> None:
    text = _program(
        """
        class Fn(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.x = x
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2
        """
    )
    plan = prefilter.plan(text)
    assert "ctx.x = x" in plan.text and "return g * 2" in plan.text


SOURCES = sorted((REPO_ROOT / "inplace_lint").rglob("*.py")) + sorted(
    (REPO_ROOT / "tests").rglob("*.py")
)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.relative_to(REPO_ROOT).as_posix())
def test_reduced_text_is_valid_python_with_the_same_rows(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    plan = prefilter.plan(text)
    if plan.kind != "reduced":
        return
    ast.parse(plan.text)
    assert plan.text.count("\n") == text.count("\n")


def test_statement_walk_yields_what_ast_walk_yields_of_statements() -> None:
    """`_statements` replaces `ast.walk` where only statements matter (a class's `__init__`):
    the same statements, nested blocks, handlers, match cases and nested definitions included."""
    package = REPO_ROOT / "inplace_lint"
    sources = [path.read_text(encoding="utf-8") for path in sorted(package.rglob("*.py"))]
    sources.append(
        textwrap.dedent(
            """
            def __init__(self, x):
                try:
                    self.a = 1
                except* ValueError:
                    self.b: int = 2
                else:
                    self.c += 3
                finally:
                    pass
                match x:
                    case 1:
                        self.d = [y for y in x if (z := y)]
                    case _:
                        f = lambda: 0
                class Inner:
                    e = 4
                    def g(self):
                        async with a as b:
                            for i in x:
                                self.h = i
                            else:
                                while x:
                                    self.k = 5
            """
        )
    )
    for source in sources:
        tree = ast.parse(source)
        want = [n for n in ast.walk(tree) if isinstance(n, ast.stmt)]
        got = list(prefilter._statements(tree))
        assert sorted(map(id, got)) == sorted(map(id, want))
        assert len(got) == len(want)


def test_cheap_text_tests_answer_as_the_regexes_do() -> None:
    """The substring and split-up searches give the answers of the single regexes they replace."""
    import re

    old_odd = re.compile(r"\r(?!\n)|[\x0b\x1c-\x1e\x85\u2028\u2029]")
    old_mention = re.compile(r"\b(?:torch|paddle)\b")
    for text in [
        "a\nb\n",
        "a\r\nb\r\n",
        "a\rb",
        "a\r\n\rb",
        "x = 1\x0c\n",
        "x\x0by",
        "x\u2028y",
        "x\x85",
        "import torchvision\n",
        "import torch\n",
        "paddle_x = 1\n",
        "import paddle.nn\n",
        "",
    ]:
        assert prefilter._odd_line_breaks(text) == (old_odd.search(text) is not None), text
        assert prefilter.mentions_framework(text) == (old_mention.search(text) is not None), text


ANNOTATIONS = [
    "int", "float", "torch.Tensor", "Tensor", "Optional[int]", "Optional[Tensor]",
    "typing.Optional[typing.List[int]]", "Optional[List[Tensor]]", "List[int] | None",
    "None | Dict[str, Tensor]", "Tensor | None", "int | float", "Optional[int,]",
    "Optional[(int, str)]", "Optional[int, str]", "Optional[Optional[dict]]", "'Tensor'",
    '"List[int]"', "'Optional[ dict ]'", "collections.OrderedDict[str, Tensor]", "a.b().c",
    "Callable[..., Tensor]", "tuple[Tensor, ...]", "Sequence[int] | None | None",
    "Optional[Optional[Optional[Optional[Optional[Optional[Optional[Optional[int]]]]]]]]",
    "Union[int, Tensor]", "nn.Module", "Iterator[Tensor]", "None",
]  # fmt: skip


@pytest.mark.parametrize("annotation", ANNOTATIONS)
def test_annotation_head_matches_the_analysis(annotation: str) -> None:
    """The prefilter drops an annotation only where the analysis would read nothing from it:
    its ``ast`` reading of the head must be the analysis' reading on libcst's tree (or None)."""
    import libcst as cst

    from inplace_lint.analysis import dataflow

    source = f"def f(x: {annotation}): pass\n"
    ours = prefilter._annotation_head(ast.parse(source).body[0].args.args[0].annotation)
    param = cst.parse_module(source).body[0].params.params[0]
    theirs = dataflow._annotation_head(param.annotation.annotation)
    if ours is not None:
        assert ours == theirs
    else:
        assert annotation.startswith(("'", '"', "Optional[int,", "Optional[(", "Optional[int, "))


def test_annotations_the_analysis_does_not_read_are_blanked_in_place() -> None:
    text = _program(
        """
        from typing import List, Optional


        def scale(x: torch.Tensor, n: int, sizes: Optional[List[int]] = None, *rest: "Tensor",
                  gate: torch.Tensor | None = None) -> torch.Tensor:
            x.mul_(n)
            return x


        def train(steps: int) -> None:
            w = torch.randn(3, requires_grad=True)
            y = w.exp()
            scale(y, steps)
            y.sum().backward()
        """
    )
    plan = prefilter.plan(text)
    assert plan.kind == "reduced"
    row = next(line for line in plan.text.splitlines() if line.startswith("def scale("))
    assert row == (
        'def scale(x              , n: int, sizes: Optional[List[int]] = None, *rest: "Tensor",'
    )
    assert "def train(steps: int)        :" in plan.text
    assert [len(line) for line in plan.text.splitlines() if line.startswith("def ")] == [
        len(line) for line in text.splitlines() if line.startswith(("def scale", "def train"))
    ] + [len(line) for line in plan.text.splitlines() if line.startswith("def filler")]
    assert _same_as_full(text) == "reduced"
    assert {d.code for d in lint_source(text, "t.py", DEFAULT_SETTINGS)} == {"IPL001"}


def test_a_container_call_of_a_call_is_not_excused() -> None:
    """`list(range(len(self.dataset)))`: the analysis takes an unknown call given a tensor for a
    tensor (IPL201 on the `+=`, risky tier), so the triage must not excuse the write as a list's
    (transformers' `trainer_pt_utils.py` differed between the two before)."""
    text = _program(
        """
        from torch.utils.data import Sampler


        class ShardSampler(Sampler):
            def __init__(self, dataset, batch_size=1, total=10):
                self.dataset = dataset
                self.batch_size = batch_size
                self.total = total

            def __iter__(self):
                indices = list(range(len(self.dataset)))
                while len(indices) < self.total:
                    indices += indices[: (self.total - len(indices))]
                result = []
                for start in range(0, self.total, self.batch_size):
                    result += indices[start : start + self.batch_size]
                return iter(result)
        """
    )
    assert _kept(text, "indices += indices[: (self.total - len(indices))]")
    assert _same_as_full(text) == "reduced"
    # arguments that cannot be tensors keep a container a container
    for call in ("dict()", "defaultdict(list)", "set()", "list()", "OrderedDict()"):
        function = ast.parse(f"def f():\n    d = {call}\n    d[k] = 1\n").body[0]
        assert not prefilter._scan([function], True).seed
    assert prefilter._scan(
        [ast.parse("def f(x):\n    d = list(x)\n    d[k] = 1\n").body[0]], True
    ).seed
