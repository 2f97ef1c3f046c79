"""What the rules offer as rewrites, on the real engine: the rewrite keeps what the write was
for, or none is offered (fix44: each case below was a rewrite that ran but computed something
else, raised an error of its own, or never settled)."""

from __future__ import annotations

import textwrap

from inplace_lint.api import lint_source
from inplace_lint.fixes import fix_text
from inplace_lint.rules import all_rules
from inplace_lint.settings import Settings

EVERY_RULE = Settings(enabled=frozenset(all_rules()))


def _fixes(source: str) -> list[tuple[str, str, str]]:
    """(code, fix title, applicability) of every diagnostic with a fix."""
    diagnostics = lint_source(textwrap.dedent(source), "t.py", EVERY_RULE)
    return [(d.code, d.fix.message, d.fix.applicability) for d in diagnostics if d.fix]


def _codes(source: str) -> list[str]:
    return [d.code for d in lint_source(textwrap.dedent(source), "t.py", EVERY_RULE)]


def _fixed(source: str) -> str:
    outcome = fix_text(textwrap.dedent(source), "t.py", EVERY_RULE, unsafe=True)
    assert outcome.error is None
    return outcome.text


HELPER = """
import torch

def power_(spec):
    spec.mul_(spec)

def main():
    x = torch.randn(3, requires_grad=True)
    y = x.exp()
    power_(y)
    y.sum().backward()
"""


def test_no_rebinding_of_an_argument_the_function_never_reads_again() -> None:
    # `spec = spec.mul(spec)` would make the helper do nothing
    assert _codes(HELPER) == ["IPL001"]
    assert _fixes(HELPER) == []


def test_rebinding_an_argument_is_unsafe() -> None:
    source = """
    import torch

    def scaled(spec):
        spec.mul_(spec)
        return spec

    def main():
        x = torch.randn(3, requires_grad=True)
        y = x.exp()
        z = scaled(y)
        z.sum().backward()
    """
    assert _fixes(source) == [("IPL001", "Rewrite as `spec = spec.mul(...)`", "unsafe")]


def test_a_local_name_is_rebound_safely() -> None:
    source = """
    import torch

    def main():
        x = torch.randn(3, requires_grad=True)
        y = x.exp()
        y.mul_(2)
        y.sum().backward()
    """
    assert _fixes(source) == [("IPL001", "Rewrite as `y = y.mul(...)`", "safe")]


def test_no_rebinding_of_a_view_whose_base_is_read_afterwards() -> None:
    source = """
    import torch

    def main():
        x = torch.randn(2, 3, requires_grad=True)
        h = x.sigmoid()
        rows = h[:, 0]
        rows.mul_(0.5)
        h.sum().backward()
    """
    assert _codes(source) == ["IPL001"]
    assert _fixes(source) == []


def test_no_rebinding_of_another_objects_attribute() -> None:
    source = """
    import collections
    import torch

    Out = collections.namedtuple("Out", "mean std")

    def main():
        x = torch.randn(3, requires_grad=True)
        out = Out(x * 2, x.exp())
        out.std.clamp_(max=5.0)
        out.std.sum().backward()
    """
    assert _codes(source) == ["IPL001"]
    assert _fixes(source) == []


def test_a_leaf_given_a_value_from_the_graph_is_written_out_of_place() -> None:
    # EGNN: `coord += agg` on the caller's leaf coordinates; `no_grad` would lose agg's gradient
    source = """
    import torch

    def main():
        coord = torch.randn(5, 3, requires_grad=True)
        w = torch.randn(3, requires_grad=True)
        agg = coord * w
        coord += agg
        coord.sum().backward()
    """
    assert _fixes(source) == [("IPL002", "Rewrite as `coord = coord + ...`", "unsafe")]
    assert "coord = coord + agg" in _fixed(source)


def test_a_parameter_update_from_the_graph_is_still_wrapped_in_no_grad() -> None:
    source = """
    import torch
    import torch.nn as nn

    class Hebbian(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(torch.randn(3, 5))

        def forward(self, x):
            y = x @ self.weight.t()
            self.weight += 0.01 * y.t() @ x
            return y

    def main():
        Hebbian()(torch.randn(4, 5)).sum().backward()
    """
    assert _fixes(source) == [("IPL002", "Wrap in `with torch.no_grad():`", "unsafe")]


def test_no_clone_before_a_write_whose_own_op_saves_the_tensor() -> None:
    # the clone would be saved by `cell` and written the same way: the fix never settled
    source = """
    import torch
    import torch.nn as nn

    def main():
        cell = nn.RNNCell(3, 4)
        xs = torch.randn(5, 2, 3)
        hs = torch.zeros(5, 2, 4)
        for t in range(1, 5):
            hs[t] = cell(xs[t], hs[t - 1])
        hs.sum().backward()
    """
    diagnostics = lint_source(textwrap.dedent(source), "t.py", EVERY_RULE)
    assert [d.code for d in diagnostics] == ["IPL001"]
    assert diagnostics[0].fix is None
    assert "collect them in a list and `torch.stack`" in diagnostics[0].message


def test_a_clone_before_the_write_when_an_earlier_op_saved_it() -> None:
    source = """
    import torch

    def main():
        x = torch.randn(3, requires_grad=True)
        h = torch.sigmoid(x)
        h[0] = 0.0
        h.sum().backward()
    """
    assert _fixes(source) == [("IPL001", "Clone `h` before writing to it", "unsafe")]
    assert "h = h.clone()\n    h[0] = 0.0" in _fixed(source)


def test_a_hook_lambda_is_not_wrapped_in_no_grad() -> None:
    source = """
    import paddle

    def main():
        w = paddle.create_parameter([3], "float32")
        w.register_hook(lambda g: g.clip_(-0.01, 0.01))
        (w * 2).sum().backward()
    """
    fixes = _fixes(source)
    assert not [f for f in fixes if "no_grad" in f[1]]


def test_a_later_write_with_grad_is_replayed_after_one_under_no_grad() -> None:
    # XLM's helper with its first column write wrapped: the second one still raises
    source = """
    import torch
    import torch.nn as nn

    def fill(out):
        with torch.no_grad():
            out[:, 0::2] = 1.0
        out[:, 1::2] = 2.0

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(8, 4)
            fill(self.emb.weight)
    """
    assert "IPL003" in _codes(source)
