"""Differential test of the analysis against PyTorch itself, on generated programs.

    python scripts/differential.py [--examples 2000] [--seed 1] [--show 20] [--save DIR]

Each example is a small training-style function drawn at random: tensors created with and
without ``requires_grad``, shape-preserving ops (elementwise, matmul, transposes, views, rows,
``unbind``, modules such as ``nn.Linear`` and ``nn.ReLU(inplace=True)``), in-place writes of
every kind (methods ending in ``_``, augmented assignment, item assignment, ``inplace=True``,
writes through ``.detach()``, ``.data`` and views), some under ``torch.no_grad()``, then a
``backward()`` through some of the results. The program is run under the real framework (this
script imports torch; the linter never does) and its outcome classified:

- ``raise``: one of autograd's in-place errors (a saved tensor modified, a leaf or a view of a
  leaf written, an output of a multi-output view written, ...);
- ``ok``: it ran;
- anything else (a shape error, "does not require grad", ...) makes the example invalid: skipped.

Then it is linted with the default rules. A mismatch is an error-severity diagnostic on a program
that ran (**false alarm**: the promise of an error diagnostic is that the code raises) or an
in-place error that got no error-severity diagnostic (**missed**). Mismatches are grouped by the
kind of the statement PyTorch blamed (or the linter flagged) and printed, smallest first; with
``--save`` each is written as a file for reading. Writes through ``.data`` are silent in PyTorch
(no error, wrong gradients): a warning there is neither counted nor required.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import sys
import traceback
import warnings
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from inplace_lint.api import lint_source
from inplace_lint.diagnostics import Severity

# Autograd's in-place errors (messages of torch 2.13): the outcomes the linter promises.
INPLACE_ERRORS = (
    "modified by an inplace operation",
    "a leaf Variable that requires grad is being used in an in-place operation",
    "a view of a leaf Variable that requires grad is being used in an in-place operation",
    "is a view and is being modified inplace",
    "is a view and its base or another view of its base has been modified inplace",
    "which is the output of a function that returns multiple views",
    "out=... arguments don't support automatic differentiation",
)

FULL, ROW, SCALAR = (4, 4), (4,), ()

# Paddle's in-place errors (paddle 3.3): a leaf that requires grad written, a saved tensor written.
PADDLE_ERRORS = (
    "can't use inplace strategy",
    "has been modified by an inplace operation",
    "should be of type Parameter",
)


@dataclass
class Var:
    name: str
    shape: tuple
    grad: bool  # requires grad (as far as the generator tracks it)


@dataclass
class Program:
    lines: list[str] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)  # per line: what was drawn
    rows: list[tuple[str, str]] = field(default_factory=list)  # the rendered file: (text, kind)
    created: dict[str, tuple[str, bool]] = field(default_factory=dict)  # name -> (dims, grad)

    def add(self, line: str, kind: str) -> None:
        self.lines.append(line)
        self.kinds.append(kind)

    @property
    def text(self) -> str:
        return "".join(f"{row}\n" for row, _ in self.rows)

    def kind_at(self, row: int | None) -> str:
        if row is None or not 1 <= row <= len(self.rows):
            return "?"
        return self.rows[row - 1][1] or "?"


def render_function(prog: Program, rng: random.Random) -> None:
    """The drawn statements as one function's body; some ops and writes moved into helpers."""
    helpers: list[tuple[str, str]] = []
    body: list[tuple[str, str]] = []
    for line, kind in zip(prog.lines, prog.kinds):
        body.extend(_maybe_helper(line, kind, rng, helpers, len(helpers)))
    rows = [(h, "") for h in FW["header"].splitlines()]
    for text, kind in helpers:
        rows.append((text, kind))
    rows += [("", ""), ("", ""), ("def f():", "")]
    rows += [(f"    {text}", kind) for text, kind in _loops(body, rng)]
    rows += [("", ""), ("", ""), ("f()", "")]
    prog.rows = rows


def render_module(prog: Program, rng: random.Random, training: bool = False) -> None:
    """The drawn statements as an nn.Module: tensors that require grad are parameters made in
    ``__init__`` (read as ``self.tN``), modules are submodules, the body is ``forward``, and the
    loss and backward run in the caller."""
    params = []
    init: list[tuple[str, str]] = []
    forward: list[tuple[str, str]] = []
    driver: list[tuple[str, str]] = []
    helpers: list[tuple[str, str]] = []
    inputs: list[tuple[str, str]] = []
    names: list[str] = []  # the inputs' names: forward's parameters
    stems: list[str] = []
    for line, kind in zip(prog.lines, prog.kinds):
        name = line.split(" = ")[0].split(".")[0]
        if kind == "create" and name in prog.created:
            dims, grad = prog.created[name]
            if name in params or name in names:
                continue  # the second line of a creation (`t.stop_gradient = False`)
            if grad:
                params.append(name)
                init.append((f"self.{name} = {FW['parameter'].format(dims=dims)}", kind))
                continue
            # an input: an earlier layer's output
            width = dims.split(",")[-1].strip()
            stems.append(f"stem{len(names)} = nn.Linear({width}, {width})")
            inputs.append((f"{name} = stem{len(names)}({FW['randn'].format(dims=dims)})", kind))
            names.append(name)
            continue
        module = re.match(r"(lin|act|bn|sig|drop|seq\d+) = (.*)$", line)
        if kind == "module" and module:
            init.append((f"self.{module.group(1)} = {module.group(2)}", kind))
            continue
        if kind in ("loss", "backward"):
            driver.append((line, kind))
            continue
        forward.extend(_maybe_helper(line, kind, rng, helpers, len(helpers)))
    if not driver:
        forward.append(("return None", ""))
    modules = ["lin", "act", "bn", "sig", "drop", r"seq\d+"]
    rename = re.compile(r"\b(" + "|".join(params + modules) + r")\b")

    def selfish(text: str) -> str:
        return rename.sub(lambda m: f"self.{m.group(1)}", text)

    rows = [(h, "") for h in FW["header"].splitlines()]
    rows += [(text, kind) for text, kind in helpers]
    rows += [("", ""), ("", ""), (f"class M({FW['layer']}):", ""), ("    def __init__(self):", "")]
    rows += [("        super().__init__()", "")]
    rows += [(f"        {text}", kind) for text, kind in init]
    rows += [("", ""), (f"    def forward({', '.join(['self', *names])}):", "")]
    loss_line = next((text for text, kind in driver if kind == "loss"), None)
    body = [(selfish(text), kind) for text, kind in _loops(forward, rng)]
    if loss_line is not None:
        body.append((selfish(loss_line.replace("loss = ", "return ")), "loss"))
    rows += [(f"        {text}", kind) for text, kind in body]
    rows += [("", ""), ("", ""), ("def f():", ""), ("    model = M()", "")]
    rows += [(f"    {text}", "") for text in stems]
    rows += [(f"    {text}", kind) for text, kind in inputs]
    call = f"model({', '.join(names)})"
    if loss_line is not None and training and params:
        rows += _training_step(call, rng)
    elif loss_line is not None:
        rows += [(f"    loss = {call}", "loss"), ("    loss.backward()", "backward")]
    else:
        rows += [(f"    {call}", "")]
    rows += [("", ""), ("", ""), ("f()", "")]
    prog.rows = rows


def _training_step(call: str, rng: random.Random) -> list[tuple[str, str]]:
    """The caller of a module: an optimizer, and one of the usual orders of forward, backward and
    step (some of which update the parameters between a forward and a backward through it)."""
    rows = [(f"    opt = {FW['optimizer']}", "")]
    variant = rng.randrange(6)
    if variant == 0:  # the usual step
        rows += [
            (f"    loss = {call}", "loss"),
            (f"    {FW['zero_grad']}", ""),
            ("    loss.backward()", "backward"),
            ("    opt.step()", "step"),
        ]
    elif variant == 1:  # a second backward through the graph after a step
        rows += [
            (f"    loss = {call}", "loss"),
            ("    loss.backward(retain_graph=True)", "backward"),
            ("    opt.step()", "step"),
            ("    loss.backward()", "backward"),
        ]
    elif variant == 2:  # two forwards, a step between their backwards
        rows += [
            (f"    loss = {call}", "loss"),
            (f"    other = {call}", "loss"),
            ("    loss.backward()", "backward"),
            ("    opt.step()", "step"),
            ("    other.backward()", "backward"),
        ]
    elif variant == 3:  # two forwards, both backwards before the step
        rows += [
            (f"    loss = {call}", "loss"),
            (f"    other = {call}", "loss"),
            ("    loss.backward()", "backward"),
            ("    other.backward()", "backward"),
            ("    opt.step()", "step"),
        ]
    elif variant == 4:  # a manual update under no_grad, then a new forward
        rows += [
            (f"    loss = {call}", "loss"),
            ("    loss.backward()", "backward"),
            (f"    {FW['no_grad']}", ""),
            ("        for p in model.parameters():", ""),
            ("            p -= 0.1 * p.grad", "step"),
            (f"    loss = {call}", "loss"),
            ("    loss.backward()", "backward"),
        ]
    else:  # a manual update under no_grad, then a backward through the old graph
        rows += [
            (f"    loss = {call}", "loss"),
            ("    loss.backward(retain_graph=True)", "backward"),
            (f"    {FW['no_grad']}", ""),
            ("        for p in model.parameters():", ""),
            ("            p -= 0.1 * p.grad", "step"),
            ("    loss.backward()", "backward"),
        ]
    return rows


def _maybe_helper(line, kind, rng, helpers, index):
    """Now and then a drawn op or write moves into a module-level helper."""
    if "=" in line and kind.startswith("op:") and rng.random() < 0.25:
        name, expr = line.split(" = ", 1)
        args = sorted(set(re.findall(r"\bt\d+\b", expr)))
        if args:
            params = [f"a{i}" for i in range(len(args))]
            for arg, param in zip(args, params):
                expr = re.sub(rf"\b{arg}\b", param, expr)
            fn = f"helper{index}"
            helpers.extend(
                [
                    ("", ""),
                    ("", ""),
                    (f"def {fn}({', '.join(params)}):", ""),
                    (f"    return {expr}", kind),
                ]
            )
            return [(f"{name} = {fn}({', '.join(args)})", kind + " (helper)")]
    if kind.startswith("write:") and "(no_grad)" not in kind and rng.random() < 0.25:
        args = sorted(set(re.findall(r"\bt\d+\b", line)))
        if args:
            params = [f"a{i}" for i in range(len(args))]
            body = line
            for arg, param in zip(args, params):
                body = re.sub(rf"\b{arg}\b", param, body)
            if " = " in body.split("(")[0] and not body.startswith(params[0] + "["):
                return [(line, kind)]  # `t5 = F.relu(t3, inplace=True)`: keep the binding here
            fn = f"write{index}"
            helpers.extend(
                [("", ""), ("", ""), (f"def {fn}({', '.join(params)}):", ""), (f"    {body}", kind)]
            )
            return [(f"{fn}({', '.join(args)})", kind + " (helper)")]
    return [(line, kind)]


def _loops(body: list[tuple[str, str]], rng: random.Random) -> list[tuple[str, str]]:
    """Now and then a drawn statement runs twice, in a loop."""
    out = []
    for text, kind in body:
        if kind.startswith(("op:", "write:")) and text[0] != " " and rng.random() < 0.1:
            out.append(("for _ in range(2):", "loop"))
            out.append((f"    {text}", kind + " (loop)"))
        else:
            out.append((text, kind))
    return out


UNARY = [
    ("torch.exp({x})", "exp"),
    ("torch.sigmoid({x})", "sigmoid"),
    ("{x}.sigmoid()", "sigmoid"),
    ("torch.tanh({x})", "tanh"),
    ("torch.relu({x})", "relu"),
    ("F.relu({x})", "relu"),
    ("torch.sin({x})", "sin"),
    ("{x}.cos()", "cos"),
    ("{x}.pow(2)", "pow"),
    ("{x} ** 2", "pow"),
    ("{x}.abs()", "abs"),
    ("-{x}", "neg"),
    ("{x}.clone()", "clone"),
    ("{x} * 3", "mul_scalar"),
    ("{x} + 1", "add_scalar"),
    ("{x} / 2", "div_scalar"),
    ("torch.softmax({x}, dim=-1)", "softmax"),
    ("F.log_softmax({x}, dim=-1)", "log_softmax"),
    ("F.gelu({x})", "gelu"),
    ("F.silu({x})", "silu"),
    ("F.leaky_relu({x}, 0.1)", "leaky_relu"),
    ("torch.square({x})", "square"),
    ("{x}.sqrt()", "sqrt"),
    ("F.normalize({x}, dim=-1)", "normalize"),
    ("{x}.sum()", "sum"),
    ("{x}.mean()", "mean"),
    ("{x}.norm()", "norm"),
    ("torch.clamp({x}, min=0)", "clamp"),
    ("F.dropout({x}, 0.5)", "dropout"),
    ("{x}.detach()", "detach"),
]
VIEWS = [
    ("{x}.view(4, 4)", "view", FULL),
    ("{x}.t()", "t", FULL),
    ("{x}.transpose(0, 1)", "transpose", FULL),
    ("{x}[0]", "row", ROW),
    ("{x}[:, 1]", "column", ROW),
    ("{x}.reshape(4, 4)", "reshape", FULL),
    ("{x}.expand(4, 4)", "expand", FULL),
    ("{x}.unsqueeze(0)[0]", "unsqueeze", FULL),
]
BINARY = [
    ("{x} + {y}", "add"),
    ("{x} - {y}", "sub"),
    ("{x} * {y}", "mul"),
    ("{x} / ({y}.abs() + 1)", "div"),
    ("torch.maximum({x}, {y})", "maximum"),
    ("torch.where({x} > 0, {x}, {y})", "where"),
    ("torch.cat([{x}, {y}])[:4]", "cat"),
    ("torch.stack([{x}, {y}])[0]", "stack"),
]
INPLACE_UNARY = [
    ("{x}.add_(1)", "add_"),
    ("{x}.mul_(2)", "mul_"),
    ("{x} += 1", "iadd_scalar"),
    ("{x} *= 2", "imul_scalar"),
    ("{x} /= 2", "idiv_scalar"),
    ("{x}.zero_()", "zero_"),
    ("{x}.relu_()", "relu_"),
    ("{x}.sigmoid_()", "sigmoid_"),
    ("{x}.exp_()", "exp_"),
    ("{x}.clamp_(min=0)", "clamp_"),
    ("torch.relu_({x})", "torch.relu_"),
    ("F.relu({x}, inplace=True)", "F.relu(inplace)"),
    ("{x}.fill_(1)", "fill_"),
    ("{x}.masked_fill_({x} > 0, 0)", "masked_fill_"),
    ("{x}[0] = 0", "setitem_row"),
    ("{x}[...] = 1", "setitem_all"),
    ("{x}.detach().mul_(2)", "detach_write"),
    ("{x}.data.mul_(2)", "data_write"),
    ("F.dropout({x}, 0.5, True, True)", "dropout(inplace)"),
]
INPLACE_BINARY = [
    ("{x} += {y}", "iadd"),
    ("{x} -= {y}", "isub"),
    ("{x} *= {y}", "imul"),
    ("{x}.add_({y})", "add_t"),
    ("{x}.copy_({y})", "copy_"),
    ("{x}.mul_({y})", "mul_t"),
    ("{x}.addcmul_({y}, {y})", "addcmul_"),
]


PADDLE_UNARY = [
    ("paddle.exp({x})", "exp"),
    ("F.sigmoid({x})", "sigmoid"),
    ("paddle.tanh({x})", "tanh"),
    ("F.relu({x})", "relu"),
    ("paddle.sin({x})", "sin"),
    ("{x}.cos()", "cos"),
    ("{x}.pow(2)", "pow"),
    ("{x} ** 2", "pow"),
    ("{x}.abs()", "abs"),
    ("-{x}", "neg"),
    ("{x}.clone()", "clone"),
    ("{x} * 3", "mul_scalar"),
    ("{x} + 1", "add_scalar"),
    ("{x} / 2", "div_scalar"),
    ("F.softmax({x}, axis=-1)", "softmax"),
    ("F.log_softmax({x}, axis=-1)", "log_softmax"),
    ("F.gelu({x})", "gelu"),
    ("F.silu({x})", "silu"),
    ("F.leaky_relu({x}, 0.1)", "leaky_relu"),
    ("paddle.square({x})", "square"),
    ("{x}.sqrt()", "sqrt"),
    ("F.normalize({x}, axis=-1)", "normalize"),
    ("{x}.sum()", "sum"),
    ("{x}.mean()", "mean"),
    ("paddle.clip({x}, min=0)", "clip"),
    ("F.dropout({x}, 0.5)", "dropout"),
    ("{x}.detach()", "detach"),
]
PADDLE_VIEWS = [
    ("{x}.reshape([-1, 4])", "reshape", FULL),  # [4, 4] would return the tensor itself
    ("{x}.t()", "t", FULL),
    ("{x}.transpose([1, 0])", "transpose", FULL),
    ("{x}[0]", "row", ROW),
    ("{x}[:, 1]", "column", ROW),
    ("{x}.unsqueeze(0)[0]", "unsqueeze", FULL),
]
PADDLE_BINARY = [
    ("{x} + {y}", "add"),
    ("{x} - {y}", "sub"),
    ("{x} * {y}", "mul"),
    ("{x} / ({y}.abs() + 1)", "div"),
    ("paddle.maximum({x}, {y})", "maximum"),
    ("paddle.where({x} > 0, {x}, {y})", "where"),
    ("paddle.concat([{x}, {y}])[:4]", "cat"),
    ("paddle.stack([{x}, {y}])[0]", "stack"),
]
PADDLE_INPLACE_UNARY = [
    ("{x}.scale_(2)", "scale_"),
    ("{x} += 1", "iadd_scalar"),
    ("{x} *= 2", "imul_scalar"),
    ("{x}.zero_()", "zero_"),
    ("F.relu_({x})", "relu_"),
    ("{x}.sigmoid_()", "sigmoid_"),
    ("{x}.exp_()", "exp_"),
    ("{x}.clip_(min=0)", "clip_"),
    ("{x}.tanh_()", "tanh_"),
    ("{x}.sqrt_()", "sqrt_"),
    ("{x}.fill_(1)", "fill_"),
    ("{x}[0] = 0", "setitem_row"),
    ("{x}[:] = 1", "setitem_all"),
    ("{x}.detach().scale_(2)", "detach_write"),
]
PADDLE_INPLACE_BINARY = [
    ("{x} += {y}", "iadd"),
    ("{x} -= {y}", "isub"),
    ("{x}.add_({y})", "add_t"),
    ("{x}.multiply_({y})", "mul_t"),
    ("{x}.subtract_({y})", "sub_t"),
]

FRAMEWORKS = {
    "torch": {
        "header": "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n",
        "unary": UNARY,
        "views": VIEWS,
        "binary": BINARY,
        "inplace_unary": INPLACE_UNARY,
        "inplace_binary": INPLACE_BINARY,
        "errors": INPLACE_ERRORS,
        "unbind": "{x}.unbind(0)",
        "randn": "torch.randn({dims})",
        "grad_styles": [
            ["{name} = torch.randn({dims}, requires_grad=True)"],
            ["{name} = nn.Parameter(torch.randn({dims}))"],
            ["{name} = torch.randn({dims}).requires_grad_()"],
        ],
        "parameter": "nn.Parameter(torch.randn({dims}))",
        "layer": "nn.Module",
        "no_grad": "with torch.no_grad():",
        "modules": [
            ("lin", "nn.Linear(4, 4)", "linear"),
            ("act", "nn.ReLU(inplace=True)", "relu_module(inplace)"),
            ("bn", "nn.BatchNorm1d(4)", "batchnorm"),
            ("sig", "nn.Sigmoid()", "sigmoid_module"),
            ("drop", "nn.Dropout(0.5, inplace=True)", "dropout_module(inplace)"),
        ],
        "optimizer": "torch.optim.SGD(model.parameters(), lr=0.1)",
        "layers": [
            "nn.Linear(4, 4)",
            "nn.ReLU(inplace=True)",
            "nn.ReLU()",
            "nn.Sigmoid()",
            "nn.Tanh()",
            "nn.BatchNorm1d(4)",
            "nn.LayerNorm(4)",
            "nn.Dropout(0.5, inplace=True)",
            "nn.LeakyReLU(0.1, inplace=True)",
            "nn.ELU(inplace=True)",
            "nn.Hardtanh(inplace=True)",
            "nn.SiLU(inplace=True)",
            "nn.Softmax(dim=-1)",
        ],
        "zero_grad": "opt.zero_grad()",
        "matmul": "{x} @ {y}",
    },
    "paddle": {
        "header": "import paddle\nimport paddle.nn as nn\nimport paddle.nn.functional as F\n",
        "unary": PADDLE_UNARY,
        "views": PADDLE_VIEWS,
        "binary": PADDLE_BINARY,
        "inplace_unary": PADDLE_INPLACE_UNARY,
        "inplace_binary": PADDLE_INPLACE_BINARY,
        "errors": PADDLE_ERRORS,
        "unbind": "paddle.unbind({x}, axis=0)",
        "randn": "paddle.randn([{dims}])",
        "grad_styles": [
            ["{name} = paddle.randn([{dims}])", "{name}.stop_gradient = False"],
            ['{name} = paddle.create_parameter([{dims}], "float32")'],
            ["{name} = paddle.to_tensor(paddle.randn([{dims}]).numpy(), stop_gradient=False)"],
        ],
        "parameter": "self.create_parameter([{dims}])",
        "layer": "nn.Layer",
        "no_grad": "with paddle.no_grad():",
        "modules": [
            ("lin", "nn.Linear(4, 4)", "linear"),
            ("act", "nn.ReLU()", "relu_module"),
            ("bn", "nn.BatchNorm1D(4)", "batchnorm"),
            ("sig", "nn.Sigmoid()", "sigmoid_module"),
            ("drop", "nn.Dropout(0.5)", "dropout_module"),
        ],
        "optimizer": "paddle.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())",
        "layers": [
            "nn.Linear(4, 4)",
            "nn.ReLU()",
            "nn.Sigmoid()",
            "nn.Tanh()",
            "nn.BatchNorm1D(4)",
            "nn.LayerNorm(4)",
            "nn.Dropout(0.5)",
            "nn.LeakyReLU(0.1)",
            "nn.ELU()",
            "nn.Softmax(axis=-1)",
        ],
        "zero_grad": "opt.clear_grad()",
        "matmul": "{x} @ {y}",
    },
}
FW = FRAMEWORKS["torch"]  # the framework being drawn (compare() sets it)


class Generator:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.vars: list[Var] = []
        self.count = 0
        self.modules: dict[str, str] = {}

    def fresh(self) -> str:
        self.count += 1
        return f"t{self.count}"

    def pick(self, shapes=None, grad=None) -> Var | None:
        options = [
            v
            for v in self.vars
            if (shapes is None or v.shape in shapes) and (grad is None or v.grad == grad)
        ]
        return self.rng.choice(options) if options else None

    def program(self) -> Program:
        rng = self.rng
        prog = Program()
        for _ in range(rng.randint(1, 3)):
            self.create(prog)
        for _ in range(rng.randint(2, 7)):
            roll = rng.random()
            if roll < 0.45:
                self.op(prog)
            elif roll < 0.75:
                self.inplace(prog)
            elif roll < 0.85:
                self.view(prog)
            elif roll < 0.92:
                self.module(prog)
            else:
                self.create(prog)
        self.finish(prog)
        return prog

    def create(self, prog: Program) -> None:
        rng = self.rng
        name = self.fresh()
        shape = FULL if rng.random() < 0.8 else ROW
        dims = ", ".join(map(str, shape))
        grad = rng.random() < 0.6
        if grad:
            for line in rng.choice(FW["grad_styles"]):
                prog.add(line.format(name=name, dims=dims), "create")
        else:
            prog.add(f"{name} = {FW['randn'].format(dims=dims)}", "create")
        prog.created[name] = (dims, grad)
        self.vars.append(Var(name, shape, grad))

    def op(self, prog: Program) -> None:
        rng = self.rng
        x = self.pick()
        if x is None:
            return self.create(prog)
        name = self.fresh()
        roll = rng.random()
        if roll < 0.5:
            template, kind = rng.choice(FW["unary"])
            shape = SCALAR if kind in ("sum", "mean", "norm") else x.shape
            grad = x.grad and kind != "detach"
            line = f"{name} = {template.format(x=x.name)}"
        elif roll < 0.85:
            y = self.pick()
            template, kind = rng.choice(FW["binary"])
            if kind in ("cat", "stack") and x.shape != y.shape:
                y = x
            shape = max(x.shape, y.shape, key=len)
            grad = x.grad or y.grad
            line = f"{name} = {template.format(x=x.name, y=y.name)}"
        else:
            y = self.pick(shapes=(FULL, ROW))
            if x.shape != FULL:
                x, y = y, x
            if x is None or x.shape != FULL or y is None:
                return
            kind = "matmul"
            shape = y.shape
            grad = x.grad or y.grad
            line = f"{name} = {FW['matmul'].format(x=x.name, y=y.name)}"
        prog.add(line, f"op:{kind}")
        self.vars.append(Var(name, shape, grad))

    def view(self, prog: Program) -> None:
        rng = self.rng
        x = self.pick(shapes=(FULL,))
        if x is None:
            return
        if rng.random() < 0.2:
            names = [self.fresh() for _ in range(4)]
            prog.add(f"{', '.join(names)} = {FW['unbind'].format(x=x.name)}", "view:unbind")
            self.vars.extend(Var(n, ROW, x.grad) for n in names)
            return
        if rng.random() < 0.15:
            name = self.fresh()
            prog.add(f"{name} = {x.name}", "alias")
            self.vars.append(Var(name, x.shape, x.grad))
            return
        template, kind, shape = rng.choice(FW["views"])
        name = self.fresh()
        prog.add(f"{name} = {template.format(x=x.name)}", f"view:{kind}")
        self.vars.append(Var(name, shape, x.grad))

    def module(self, prog: Program) -> None:
        rng = self.rng
        x = self.pick(shapes=(FULL,))
        if x is None:
            return
        name = self.fresh()
        if rng.random() < 0.35:  # a Sequential of layers, some of them in place
            layers = [rng.choice(FW["layers"]) for _ in range(rng.randint(2, 4))]
            mod = f"seq{len(self.modules)}"
            ctor = f"nn.Sequential({', '.join(layers)})"
            kind = "sequential(" + ", ".join(layer.split("(")[0][3:] for layer in layers) + ")"
            prog.add(f"{mod} = {ctor}", "module")
            self.modules[mod] = ctor
            prog.add(f"{name} = {mod}({x.name})", f"module:{kind}")
            grad = x.grad or any("Linear" in layer or "Norm" in layer for layer in layers)
            self.vars.append(Var(name, FULL, grad))
            return
        mod, ctor, kind = rng.choice(FW["modules"])
        if mod not in self.modules:
            prog.add(f"{mod} = {ctor}", "module")
            self.modules[mod] = ctor
        prog.add(f"{name} = {mod}({x.name})", f"module:{kind}")
        grad = x.grad or kind in ("linear", "batchnorm")
        self.vars.append(Var(name, FULL, grad))

    def inplace(self, prog: Program) -> None:
        rng = self.rng
        x = self.pick(shapes=(FULL, ROW))
        if x is None:
            return
        if rng.random() < 0.35:
            y = self.pick(shapes=(x.shape, ROW, SCALAR) if x.shape == FULL else (ROW, SCALAR))
            if y is not None:
                template, kind = rng.choice(FW["inplace_binary"])
                line = template.format(x=x.name, y=y.name)
                x.grad = x.grad or y.grad
                return self.guarded(prog, line, f"write:{kind}")
        template, kind = rng.choice(FW["inplace_unary"])
        line = template.format(x=x.name)
        if kind == "F.relu(inplace)" and rng.random() < 0.5:
            name = self.fresh()
            line = f"{name} = {line}"
            self.vars.append(Var(name, x.shape, x.grad))
        self.guarded(prog, line, f"write:{kind}")

    def guarded(self, prog: Program, line: str, kind: str) -> None:
        if self.rng.random() < 0.2:
            prog.add(FW["no_grad"], "no_grad")
            prog.add(f"    {line}", kind + " (no_grad)")
        else:
            prog.add(line, kind)

    def finish(self, prog: Program) -> None:
        rng = self.rng
        made = [v for v in self.vars if v.grad]
        if not made:
            return
        used = rng.sample(made, k=rng.randint(1, min(3, len(made))))
        terms = " + ".join(f"{v.name}.sum()" for v in used)
        prog.add(f"loss = {terms}", "loss")
        prog.add("loss.backward()", "backward")


@dataclass
class Outcome:
    kind: str  # "raise" | "ok" | "invalid"
    message: str = ""
    row: int | None = None  # the program row that raised (for errors raised where they happen)


def run_isolated(text: str, namespace_base: dict) -> Outcome:
    """``run_program`` in a forked child: some paddle calls abort the interpreter. A child that
    dies is an invalid example."""
    import json

    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        code = 1
        try:
            outcome = run_program(text, namespace_base)
            os.write(write, json.dumps([outcome.kind, outcome.message, outcome.row]).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    if status != 0 or not data:
        return Outcome("invalid", f"the child died ({status})")
    kind, message, row = json.loads(data)
    return Outcome(kind, message, row)


def run_program(text: str, namespace_base: dict) -> Outcome:
    code = compile(text, "<example>", "exec")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(code, dict(namespace_base))  # noqa: S102 - the generated example, run on purpose
    except Exception as error:  # noqa: BLE001 - classified below
        message = str(error)
        rows = [
            frame.lineno
            for frame in traceback.extract_tb(error.__traceback__)
            if frame.filename == "<example>"
        ]
        row = rows[-1] if rows else None
        if any(pattern in message for pattern in FW["errors"]):
            first = next(line for line in message.splitlines() if line.strip())
            return Outcome("raise", first[:160], row)
        return Outcome("invalid", message.strip()[:160] if message else type(error).__name__)
    return Outcome("ok")


def lint_errors(text: str) -> list:
    return [
        d
        for d in lint_source(text, "example.py")
        if d.severity == Severity.ERROR and not d.code.startswith("IPL9")
    ]


def compare(examples: int, seed: int, layout: str = "mixed", framework: str = "torch"):
    """Draw ``examples`` valid programs, run and lint each: (totals, mismatch groups)."""
    global FW
    FW = FRAMEWORKS[framework]
    base = {"__name__": "__example__"}
    exec(FW["header"], base)  # noqa: S102 - the imports every example uses
    isolate = framework == "paddle" and hasattr(os, "fork")
    if framework == "torch":
        base["torch"].manual_seed(0)
    else:
        base["paddle"].seed(0)
        base["paddle"].set_device("cpu")

    rng = random.Random(seed)
    totals: Counter[str] = Counter()
    groups: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    seen: set[str] = set()
    while totals["valid"] < examples and totals["drawn"] < examples * 20:
        totals["drawn"] += 1
        prog = Generator(rng).program()
        chosen = layout if layout != "mixed" else rng.choice(["function", "module", "training"])
        if chosen == "function":
            render_function(prog, rng)
        else:
            render_module(prog, rng, training=chosen == "training")
        text = prog.text
        if text in seen:
            continue
        seen.add(text)
        outcome = (run_isolated if isolate else run_program)(text, base)
        if outcome.kind == "invalid":
            totals["invalid"] += 1
            continue
        totals["valid"] += 1
        totals[outcome.kind] += 1
        errors = lint_errors(text)
        if outcome.kind == "ok" and errors:
            totals["false alarm"] += 1
            first = errors[0]
            key = ("false alarm", f"{first.code} on {prog.kind_at(first.span.start.row)}")
            groups[key].append((text, f"{first.code} line {first.span.start.row}: {first.message}"))
        elif outcome.kind == "raise" and not errors:
            totals["missed"] += 1
            blamed = prog.kind_at(outcome.row) if outcome.row else _first_write(prog)
            key = ("missed", f"{_error_class(outcome.message)} at {blamed}")
            groups[key].append((text, outcome.message))
        elif outcome.kind == "raise":
            totals["caught"] += 1
        else:
            totals["quiet"] += 1

    return totals, groups


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--show", type=int, default=12, help="examples printed per group")
    parser.add_argument("--save", type=Path, help="write each mismatch to this folder")
    parser.add_argument("--summary", action="store_true", help="print only the groups")
    parser.add_argument(
        "--layout", choices=["function", "module", "training", "mixed"], default="mixed"
    )
    parser.add_argument("--framework", choices=sorted(FRAMEWORKS), default="torch")
    args = parser.parse_args()

    totals, groups = compare(args.examples, args.seed, args.layout, args.framework)
    print(
        f"examples {totals['valid']} (drawn {totals['drawn']}, invalid {totals['invalid']}): "
        f"raise {totals['raise']} (caught {totals['caught']}, missed {totals['missed']}), "
        f"ok {totals['ok']} (quiet {totals['quiet']}, false alarm {totals['false alarm']})"
    )
    if totals["raise"]:
        print(f"recall    {totals['caught'] / totals['raise']:.3f}")
    flagged = totals["caught"] + totals["false alarm"]
    if flagged:
        print(f"precision {totals['caught'] / flagged:.3f}")
    ordered = sorted(groups.items(), key=lambda item: (item[0][0], -len(item[1])))
    for (what, where), cases in ordered:
        print(f"{'' if args.summary else chr(10)}== {what}: {where} ({len(cases)})")
        if args.summary:
            continue
        for text, note in sorted(cases, key=lambda c: len(c[0]))[: args.show]:
            body = text[len(FW["header"]) :].rsplit("\n\nf()", 1)[0].strip("\n")
            print(f"-- {note}\n{body}")
    if args.save:
        args.save.mkdir(parents=True, exist_ok=True)
        n = 0
        for (what, where), cases in ordered:
            for text, note in cases:
                n += 1
                slug = re.sub(r"[^a-z0-9]+", "_", f"{what} {where}".lower()).strip("_")
                (args.save / f"{n:04d}_{slug}.py").write_text(f"# {note}\n{text}")
    return 0


def _first_write(prog: Program) -> str:
    for kind in prog.kinds:
        if kind.startswith("write:"):
            return kind
    return "?"


def _error_class(message: str) -> str:
    for pattern in FW["errors"]:
        if pattern in message:
            return pattern.split(" is being")[0][:40]
    return "?"


if __name__ == "__main__":
    sys.exit(main())
