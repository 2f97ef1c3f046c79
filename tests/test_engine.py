"""Engine behaviour that fixtures do not pin down: regressions found on released trees."""

from __future__ import annotations

import textwrap

from inplace_lint.api import lint_source


def codes(source: str) -> list[tuple[int, str]]:
    return [(d.span.start.row, d.code) for d in lint_source(textwrap.dedent(source), "t.py")]


def every_rule_codes(source: str) -> list[str]:
    """The codes found with every rule selected (the opt-in tier too)."""
    from inplace_lint.rules import all_rules
    from inplace_lint.settings import Settings

    every = Settings(enabled=frozenset(all_rules()))
    return [d.code for d in lint_source(textwrap.dedent(source), "t.py", every)]


def test_module_level_with_block_and_functions_do_not_crash() -> None:
    # paddleclas 2.6.0 hubconf.py: a module-level `with` while the module's globals are collected
    source = """
        import paddle

        with paddle.no_grad():
            table = paddle.ones([3])

        def f(x):
            return x * 2
    """
    assert codes(source) == []


def test_import_aliases_resolve() -> None:
    source = """
        import torch as th
        from torch.nn import functional as F

        def f(w):
            h = th.sigmoid(w * 2)
            F.relu_(h)
            return h

        w = th.randn(3, requires_grad=True)
        f(w).sum().backward()
    """
    assert (7, "IPL001") in codes(source)


def test_write_after_last_backward_is_harmless() -> None:
    source = """
        import torch

        w = torch.randn(3, requires_grad=True)
        h = torch.sigmoid(w * 2)
        h.sum().backward()
        h += 1
    """
    assert codes(source) == []


def test_retain_graph_keeps_saves_alive() -> None:
    source = """
        import torch

        w = torch.randn(3, requires_grad=True)
        h = torch.sigmoid(w * 2)
        h.sum().backward(retain_graph=True)
        h += 1
        h.mean().backward()
    """
    assert codes(source) == [(7, "IPL001")]


def test_literal_flag_prunes_the_branch_it_guards() -> None:
    source = """
        import torch

        def scale(x, s, inplace=False):
            if inplace:
                x.mul_(s)
                return x
            return x * s

        w = torch.randn(3, requires_grad=True)
        h = torch.sigmoid(w * 2)
        y = scale(h, 2.0, inplace=False)
        (y + h).sum().backward()
    """
    assert codes(source) == []


def test_literal_flag_true_takes_the_in_place_branch() -> None:
    source = """
        import torch

        def scale(x, s, inplace=False):
            if inplace:
                x.mul_(s)
                return x
            return x * s

        w = torch.randn(3, requires_grad=True)
        h = torch.sigmoid(w * 2)
        y = scale(h, 2.0, inplace=True)
        (y + h).sum().backward()
    """
    assert (6, "IPL001") in codes(source)


def test_is_none_on_a_defaulted_flag_prunes_the_branch() -> None:
    source = """
        import torch

        def combine(a, chunk=None):
            if chunk is not None:
                a[:chunk] = a[:chunk] * 2
            return a

        w = torch.randn(4, requires_grad=True)
        h = torch.sigmoid(w)
        combine(h).sum().backward()
        g = torch.sigmoid(w)
        combine(g, chunk=2).sum().backward()
    """
    assert codes(source) == [(6, "IPL001")]


def test_node_classes_dispatched_by_exact_type_are_final():
    """The interpreter dispatches on `type(node) is cst.X` (isinstance against libcst's ABC
    classes is slow when it fails); that is only the same when no class derives from X."""
    import libcst as cst

    from inplace_lint.analysis import dataflow

    dispatched = [
        cst.Name, cst.Integer, cst.Float, cst.Attribute, cst.Call, cst.BinaryOperation,
        cst.UnaryOperation, cst.Subscript, cst.Tuple, cst.List, cst.IfExp,
        cst.BooleanOperation, cst.Comparison, cst.NamedExpr, cst.Await, cst.Dict, cst.Set,
        *dataflow._COMPREHENSIONS, cst.SimpleStatementLine, cst.SimpleStatementSuite, cst.If,
        cst.For, cst.While, cst.With, cst.Try, cst.Match, cst.Expr, cst.Assign, cst.AnnAssign,
        cst.AugAssign, cst.Return, cst.Raise, cst.Import, cst.ImportFrom, cst.Del,
    ]  # fmt: skip
    for cls in dispatched:
        assert cls.__subclasses__() == [], cls


def test_number_literals_evaluate_like_libcst():
    import libcst as cst

    from inplace_lint.analysis.dataflow import _number

    for text in ["0", "00", "7", "1_000", "0x1F", "0o17", "0b101", "0XfF", "10**0"][:-1]:
        node = cst.parse_expression(text)
        assert _number(node) == node.evaluated_value and type(_number(node)) is int, text
    for text in ["1.0", "1.", ".5", "1e5", "1E-3", "1_0.0_1", "3.14e+2", "0.0"]:
        node = cst.parse_expression(text)
        assert _number(node) == node.evaluated_value and type(_number(node)) is float, text


def test_fast_replace_agrees_with_dataclasses_replace():
    """The analysis' `replace` copies fields without `__init__`: only valid for dataclasses with
    no `__post_init__` and no `init=False` field, which every class it is used on must stay."""
    import dataclasses

    import pytest

    from inplace_lint.analysis import events, values
    from inplace_lint.knowledge import facts

    for module in (values, events, facts):
        for cls in vars(module).values():
            if isinstance(cls, type) and dataclasses.is_dataclass(cls):
                assert "__post_init__" not in vars(cls), cls
                assert all(f.init for f in dataclasses.fields(cls)), cls
                assert not hasattr(cls, "__slots__") or "__dict__" in dir(cls), cls
    tensor = values.TensorVal(fw="torch", storage=1, producer="`x`", lineage=frozenset({3}))
    for changes in ({"storage": 2}, {"requires_grad": True, "lineage": frozenset()}, {}):
        fast = values.replace(tensor, **changes)
        slow = dataclasses.replace(tensor, **changes)
        assert fast == slow and hash(fast) == hash(slow) and fast is not tensor
    with pytest.raises(TypeError):
        values.replace(tensor, storrage=3)


def test_max_norm_set_by_keyword_or_position():
    import libcst as cst

    from inplace_lint.analysis import knowledge as kb
    from inplace_lint.analysis.dataflow import _max_norm_set

    params = kb.torch_module_init_params("torch.nn.Embedding")
    assert params[:4] == ("num_embeddings", "embedding_dim", "padding_idx", "max_norm")
    cases = {
        "nn.Embedding(3, 5, max_norm=1.0)": True,
        "nn.Embedding(3, 5, None, 2.0)": True,
        "nn.Embedding(3, 5, None, None)": False,
        "nn.Embedding(3, 5, max_norm=None)": False,
        "nn.Embedding(3, 5)": False,
        "nn.Embedding(*shape, max_norm=1.0)": False,  # cannot tell where arguments land
    }
    for text, expected in cases.items():
        assert _max_norm_set(cst.parse_expression(text), params) is expected, text


def test_children_exprs_reads_the_operands_libcst_children_holds() -> None:
    """`_children_exprs` reads fields directly; it must list what libcst's (visitor-based)
    `children` yields as operands, in the same order."""
    import libcst as cst

    from inplace_lint.analysis.dataflow import _children_exprs

    def reference(expr) -> list:
        out = []
        for child in expr.children:
            if isinstance(child, cst.BaseExpression):
                out.append(child)
            elif isinstance(child, cst.ComparisonTarget):
                out.append(child.comparator)
            elif isinstance(child, (cst.Element, cst.DictElement)):
                out.extend(c for c in child.children if isinstance(c, cst.BaseExpression))
        return out

    sources = [
        "a and b",
        "(a or (b and c))",
        "a < b <= c is not d",
        "x in (y)",
        "{a: b, **c, d: (e)}",
        "{}",
        "{a, *b, (c)}",
    ]
    for source in sources:
        expr = cst.parse_expression(source)
        got, want = _children_exprs(expr), reference(expr)
        assert len(got) == len(want) and all(g is w for g, w in zip(got, want)), source


def test_differing_literals_merge_to_unknown() -> None:
    """`flag = True` / `if c: flag = False`: after the `if` either literal may hold, so a later
    `if flag:` runs both branches; equal literals stay known."""
    from inplace_lint.analysis.values import ConstVal, Unknown, merge_values

    assert isinstance(merge_values([ConstVal(False), ConstVal(True)]), Unknown)
    assert isinstance(merge_values([ConstVal("relu"), ConstVal("gelu")]), Unknown)
    assert merge_values([ConstVal("relu"), ConstVal("relu")]) == ConstVal("relu")


def test_a_write_in_the_else_branch_of_an_option_names_the_negated_option() -> None:
    # PaddleMIX's modelscope_st_unet: the write sits in the `else:` of `if self.only_self_att:`;
    # the warning said "when `self.only_self_att` holds", the one case where it cannot happen
    source = """
        import torch
        import torch.nn as nn

        class Block(nn.Module):
            def __init__(self, only_self_att):
                super().__init__()
                self.only_self_att = only_self_att
                self.block = nn.Linear(4, 4)

            def forward(self, x):
                x = x * 2
                if self.only_self_att:
                    x = self.block(x)
                else:
                    for j in range(2):
                        x[j] = self.block(x[j])
                return x
    """
    found = [d for d in lint_source(textwrap.dedent(source), "t.py") if d.code == "IPL203"]
    assert [d.span.start.row for d in found] == [17]
    assert "when `not self.only_self_att` holds" in found[0].message


def test_an_attribute_given_modules_of_two_kinds_by_an_option_runs_each_under_its_condition() -> (
    None
):
    # mmdetection#7933: `self.rpn_conv` is a Sequential ending in ReLU when `self.num_convs > 1`,
    # a plain Conv2d otherwise; the in-place ReLU after it breaks only the first
    source = """
        import torch
        import torch.nn as nn
        import torch.nn.functional as F

        class Head(nn.Module):
            def __init__(self, num_convs=1):
                super().__init__()
                self.num_convs = num_convs
                if self.num_convs > 1:
                    self.conv = nn.Sequential(nn.Conv2d(4, 4, 3), nn.ReLU())
                else:
                    self.conv = nn.Conv2d(4, 4, 3)

            def forward(self, x):
                x = self.conv(x)
                x = F.relu(x, inplace=True)
                return x
    """
    found = [
        (d.span.start.row, d.code, d.message) for d in lint_source(textwrap.dedent(source), "t.py")
    ]
    assert [(row, code) for row, code, _ in found] == [(17, "IPL203")]
    assert "when `self.num_convs > 1` holds" in found[0][2]
    # the other side of the option (a Conv2d, whose output nothing saved) adds nothing, and the
    # same attribute with one kind of module on both sides is not an option at all
    same = textwrap.dedent(source).replace(
        "nn.Sequential(nn.Conv2d(4, 4, 3), nn.ReLU())", "nn.Conv2d(4, 4, 3)"
    )
    assert [d.code for d in lint_source(same, "t.py")] == []


def test_an_argument_defaulting_to_none_is_an_option_until_a_caller_gives_it() -> None:
    # prec33, transformers' SAM family: `if target_embedding is not None: queries += ...` with
    # no caller giving `target_embedding` runs only when one does (IPL203); a caller that passes
    # a tensor makes it certain there (IPL001)
    source = """
        import torch
        import torch.nn as nn

        class Gate(nn.Module):
            def forward(self, h, bias=None):
                out = torch.sigmoid(h)
                if bias is not None:
                    out += bias
                return out
    """
    found = [(d.code, d.message) for d in lint_source(textwrap.dedent(source), "t.py")]
    assert [code for code, _ in found] == ["IPL203"]
    assert "when `bias is not None` holds" in found[0][1]
    called = (
        textwrap.dedent(source) + "\nGate()(torch.randn(3, requires_grad=True), torch.ones(3))\n"
    )
    assert [d.code for d in lint_source(called, "t.py")] == ["IPL001"]
    left_out = textwrap.dedent(source) + "\nGate()(torch.randn(3, requires_grad=True))\n"
    assert [d.code for d in lint_source(left_out, "t.py")] == ["IPL203"]


def test_an_update_method_after_a_forward_that_returns_a_value() -> None:
    # the forward run before the method (its return is not the method's, and must not fail:
    # an IndexError in session 7 on coqui TTS's and ppdiffusers' modules)
    source = """
        import torch
        import torch.nn as nn

        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.enc = nn.Linear(4, 4)
                self.gen = nn.Sequential(nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 4))
                self.opt = torch.optim.Adam(self.gen.parameters())

            def forward(self, x):
                self.fake = self.gen(self.enc(x))
                if x.dim() > 2:
                    return None
                return self.fake

            def update(self):
                self.fake.sum().backward(retain_graph=True)
                self.opt.step()
                self.fake.mean().backward()
    """
    assert codes(source) == [(20, "IPL006")]


def test_a_training_helper_with_arguments_runs_inline_and_returns_its_loss() -> None:
    # CycleGAN's backward_D_basic(netD, real, fake): the backward inside it, through the fake
    # that is not detached, runs after G's step
    source = """
        import torch
        import torch.nn as nn

        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.netG = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 4))
                self.netD = nn.Linear(4, 1)
                self.opt_g = torch.optim.Adam(self.netG.parameters())

            def backward_d(self, netD, real, fake, scale=None):
                loss = netD(fake).mean() - netD(real).mean()
                loss.backward()
                if scale is None:
                    return loss
                return loss * scale

            def step(self, real):
                fake = self.netG(real)
                self.netD(fake).mean().backward(retain_graph=True)
                self.opt_g.step()
                loss = self.backward_d(self.netD, real, fake=fake)
                return loss.item()
    """
    assert codes(source) == [(22, "IPL006")]


def test_methods_run_inline_in_awkward_shapes_without_internal_errors() -> None:
    # mutual and self recursion, forward calling an update method that reads what forward
    # assigns, a redefined method, a property, a generator, returns in try/finally and loops
    source = """
        import torch
        import torch.nn as nn

        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.net = nn.Linear(4, 4)
                self.opt = torch.optim.SGD(self.net.parameters(), lr=0.1)

            def forward(self, x):
                self.out = self.net(x)
                self.update()
                return self.out

            def update(self):
                self.out.sum().backward(retain_graph=True)
                self.ping()
                self.opt.step()

            def ping(self):
                self.pong()

            def pong(self):
                self.ping()
                self.pong()

            def update(self):
                try:
                    self.out.sum().backward()
                    return
                finally:
                    self.opt.step()

            @property
            def size(self):
                return self.out.shape

            def items(self):
                yield self.out

            def loop(self, n):
                for _ in range(n):
                    self.out.mean().backward(retain_graph=True)
                    if n > 2:
                        return self.out
                    self.opt.step()
                return None

            def train_step(self, x):
                self.forward(x)
                self.loop(3)
                self.update()
                for item in self.items():
                    item.sum()
                return self.size
    """
    found = codes(source)
    assert all(code != "IPL903" for _, code in found), found


def test_recurrent_state_rebound_in_an_else_branch_is_carried() -> None:
    # the state walk follows every block (`else:`, `except:`, `finally:`), in text order
    source = """
        import torch
        import torch.nn as nn

        class Tracker(nn.Module):
            def __init__(self):
                super().__init__()
                self.cell = nn.GRUCell(6, 8)
                self.head = nn.Linear(8, 4)
                self.h = torch.zeros(2, 8)

            def forward(self, x):
                if x.dim() > 2:
                    x = x.flatten(1)
                else:
                    self.h = self.cell(x, self.h)
                return self.head(self.h)

        def train(model, batches, optimizer):
            for x, y in batches:
                loss = ((model(x) - y) ** 2).mean()
                optimizer.zero_grad()
                loss.backward(retain_graph=True)
                optimizer.step()

        def main():
            model = Tracker()
            optimizer = torch.optim.Adam(model.parameters())
            train(model, [(torch.randn(2, 6), torch.randn(2, 4))] * 3, optimizer)
    """
    assert codes(source) == [(24, "IPL006")]


_MASKED = """
import torch
import torch.nn as nn


class MaskedLinear(nn.Linear):
{extra}
    def set_mask(self, mask):
        self.weight = self.weight * mask
"""


def test_parameter_assignment_is_left_to_code_that_may_allow_it() -> None:
    """IPL014 stays quiet where `self.weight = <tensor>` can be legal: the class defines
    `__setattr__`, the code deletes the parameter first, or reparametrises it (`prune.`)."""
    assert codes(_MASKED.format(extra="")) == [(9, "IPL014")]
    for extra in (
        "    def __setattr__(self, name, value):\n        object.__setattr__(self, name, value)\n",
        "    def drop(self):\n        del self.weight\n",
        "    def drop(self):\n        del self._parameters['weight']\n",
        "    def pruned(self):\n        torch.nn.utils.prune.l1_unstructured(self, 'weight', 0.5)\n",
    ):
        assert codes(_MASKED.format(extra=extra)) == [], extra
    # a comment that says "prune" does not count
    assert codes(_MASKED.format(extra="    # prune the weights\n")) == [(10, "IPL014")]


def test_builtins_that_return_python_values_are_not_unknown_tensors() -> None:
    """`len(...)` is an int and `list(...)` a Python list: even the opt-in rules (IPL201/202,
    "a callee whose saves are unknown") see no tensor written by `+=` or a slot rebound."""
    from inplace_lint.rules import all_rules
    from inplace_lint.settings import Settings

    every = Settings(enabled=frozenset(all_rules()))
    source = textwrap.dedent(
        """
        import torch

        def pad(n, x):
            indices = list(range(n))
            indices += indices[:2]
            total = len(x)
            total += 1
            splits = list(torch.split(x, 2))
            splits[0] = splits[0] * 2
            return indices, total, splits
        """
    )
    assert lint_source(source, "t.py", every) == []


def test_tensors_passed_to_an_unknown_function_inside_a_tuple_count_as_passed() -> None:
    """`q, k = rearrange_many((q, k), ...)` (einops_exts, flamingo-pytorch#10): the unknown
    function's results carry the grad of the tensors in the tuple, so softmax over them saves
    an output that requires grad, and masking it in place is an error."""
    source = """
        import torch
        from torch import nn
        from einops_exts import rearrange_many

        class Attention(nn.Module):
            def __init__(self):
                super().__init__()
                self.to_q = nn.Linear(4, 4)

            def forward(self, x):
                q = self.to_q(x)
                q, k = rearrange_many((q, q), "b n d -> b n d")
                attn = (q @ k.transpose(-1, -2)).softmax(dim=-1)
                attn.masked_fill_(attn > 0.5, 0.0)
                return attn
        """
    assert codes(source) == [(15, "IPL001")]


def test_a_method_init_calls_is_reported_as_it_runs_during_construction() -> None:
    """nnue-pytorch PR#75: `__init__` calls a method that zeroes columns of `self.input.weight`
    in place, then rebinds it to `nn.Parameter(weights)`. The write is a view-of-leaf error when
    `__init__` runs it; the message must not name the later `nn.Parameter(...)` as the leaf's
    creator (what the method's analysis alone, from `__init__`'s final state, would see)."""
    source = textwrap.dedent(
        """
        import torch
        from torch import nn

        class NNUE(nn.Module):
            def __init__(self):
                super().__init__()
                self.input = nn.Linear(8, 4)
                self._zero_virtual_feature_weights()

            def _zero_virtual_feature_weights(self):
                weights = self.input.weight
                weights[:, 6:8] = 0.0
                self.input.weight = nn.Parameter(weights)
        """
    )
    (diagnostic,) = lint_source(source, "t.py")
    assert (diagnostic.code, diagnostic.span.start.row) == ("IPL003", 13)
    assert "nn.Parameter(weights)" not in diagnostic.message


def test_new_tensor_methods_make_fresh_tensors() -> None:
    """`x.new_zeros(shape)` is a new leaf with no graph (measured under torch 2.13), even when
    `x` came from a call the analysis does not follow (longformer's `torch.einsum(..., (q, k))`):
    filling it by slices writes nothing a backward needs, even for the opt-in rules."""
    from inplace_lint.rules import all_rules
    from inplace_lint.settings import Settings

    every = Settings(enabled=frozenset(all_rules()))
    source = textwrap.dedent(
        """
        import torch

        def band(q, k, n):
            scores = torch.einsum("bcxd,bcyd->bcxy", (q, k))
            out = scores.new_zeros((n, n))
            out[:, :2] = scores[:, :2]
            grad_out = q.new_full((n,), 0.0, requires_grad=True)
            return out, grad_out
        """
    )
    assert lint_source(source, "t.py", every) == []


def test_clone_advice_for_an_item_write_names_the_whole_tensor() -> None:
    """pytorch_geometric_temporal#57: `T[b][t] = ...` after an op saved `T`. Advising
    `T[b] = T[b].clone()` would itself write into `T`; the advice clones `T`."""
    source = textwrap.dedent(
        """
        import torch

        def step():
            x = torch.randn(2, 3, 3, requires_grad=True)
            T = torch.sigmoid(x)
            T[0][1] = T[0][1] * 2
            T.sum().backward()
        """
    )
    (diagnostic,) = lint_source(source, "t.py")
    assert diagnostic.code == "IPL001"
    assert "`T = T.clone()`" in diagnostic.message
    assert "T[0] = T[0].clone()" not in diagnostic.message


def test_item_replaced_in_what_may_be_a_list_or_dict() -> None:
    """`feats[j] = F.normalize(feats[j])` on an opaque module's output or an argument: a list
    or a dict takes it (PaddleSeg STFPM, PaddleVideo T2VLAD) unless the function uses the name
    as only a tensor can be used; then it is reported."""
    template = """
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
        from mylib import build_backbone

        class Net(nn.Module):
            def __init__(self, cfg):
                super().__init__()
                self.backbone = build_backbone(cfg)

            def forward(self, x):
                feats = self.backbone(x)
                {use}
                for j in range(len(feats)):
                    feats[j] = F.normalize(feats[j], dim=1)
                return feats
    """
    assert codes(template.format(use="pass")) == []
    for use in ("n = feats.shape[0]", "m = feats * 2", "f = feats[:, 0]", "m = torch.relu(feats)"):
        found = codes(template.format(use=use))
        assert any(code in ("IPL001", "IPL203") for _, code in found), (use, found)
    # a list's own methods, a loop, `len`, a sequence op: still maybe a list
    for use in ("feats.append(x)", "m = torch.cat(feats)", "print(len(feats), feats[1:])"):
        assert codes(template.format(use=use)) == [], use


def test_paddle_rebinding_update_written_back_is_not_lost() -> None:
    """IPL103: `param -= ...` then `params[i].set_value(param)` (d2l's fixed Paddle `sgd`) stores
    the rebound value; using the rebound name in a computation (`paddle.matmul(x, w)`) does not,
    and stays reported."""
    lost = """
        import paddle

        def main():
            w = paddle.randn([4, 3])
            w.stop_gradient = False
            x = paddle.randn([8, 4])
            loss = paddle.matmul(x, w).pow(2).mean()
            loss.backward()
            w -= 0.1 * w.grad
            print(paddle.matmul(x, w).sum())
    """
    assert [code for _, code in codes(lost)] == ["IPL103"]
    written_back = """
        import paddle

        def sgd(params, lr):
            with paddle.no_grad():
                for i, param in enumerate(params):
                    param -= lr * params[i].grad
                    params[i].set_value(param)

        def main():
            w = paddle.zeros([2])
            w.stop_gradient = False
            (w * 3.0).sum().backward()
            sgd([w], 0.1)
    """
    assert codes(written_back) == []
    assert [c for _, c in codes(written_back.replace("params[i].set_value(param)", "pass"))] == [
        "IPL103"
    ]


def test_lightning_manual_optimization_step_is_not_before_a_backward() -> None:
    # nequip's ConFIG training step (session 17 survey): the backward runs through
    # `self.manual_backward(...)` in a helper, then `opt.step()`, then the loss is returned for
    # logging; a false IPL006 took the return for a later backward
    source = """
        import lightning.pytorch as pl
        import torch


        class Task(pl.LightningModule):
            def __init__(self):
                super().__init__()
                self.model = torch.nn.Sequential(
                    torch.nn.Linear(4, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1)
                )
                self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)

            def _backwards(self, loss):
                self.manual_backward(loss)

            def training_step(self, batch, batch_idx):
                loss = self.model(batch).pow(2).mean()
                self.opt.zero_grad()
                self._backwards(loss)
                self.opt.step()
                return loss
    """
    assert codes(source) == []
    # `manual_backward` is a backward: a step before it, through the same graph, is found
    stepped_first = source.replace(
        "self._backwards(loss)\n                self.opt.step()",
        "self.opt.step()\n                self.manual_backward(loss)",
    )
    assert stepped_first != source
    assert (20, "IPL006") in codes(stepped_first)


def test_jit_kernel_bodies_are_not_tensor_code() -> None:
    # precision27: stable-dreamfusion's `@ti.kernel` fills a Parameter's memory directly (Taichi
    # compiles the body; autograd never sees the write: no error, `_version` stays 0, measured with
    # taichi 1.7.4 + torch 2.13). The same function without the decorator is a torch write into
    # a view of a leaf that requires grad, and raises.
    body = """
        def init(data):
            for i in range(data.shape[0]):
                data[i] = 0.1

        w = torch.nn.Parameter(torch.zeros(8))
        init(w)
    """
    plain = "import torch\n" + textwrap.dedent(body)
    assert [c for _, c in codes(plain)] == ["IPL003"]
    for header, decorator in (
        ("import taichi as ti", "@ti.kernel"),
        ("import taichi as ti", "@ti.func"),
        ("from numba import njit", "@njit(cache=True)"),
        ("import numba", "@numba.jit(nopython=True)"),
        ("import triton", "@triton.jit"),
    ):
        source = f"import torch\n{header}\n" + textwrap.dedent(body).replace(
            "def init", f"{decorator}\ndef init", 1
        )
        assert codes(source) == [], decorator


def test_reading_the_gradient_of_an_overwritten_input_is_no_reuse() -> None:
    # precision29: PaddleTest's `fill_diagonal_` test returns `y.grad` after overwriting `y` in
    # place through another name; the gradient is not the overwritten values (its value read is
    # IPL102: the in-place activation changed what `y` holds)
    body = """
        import torch

        def f(x):
            y = x * 2
            out = torch.relu_(y)
            return out, y.{read}
    """
    assert codes(body.format(read="grad")) == []
    assert codes(body.format(read="requires_grad")) == []
    assert [c for _, c in codes(body.format(read="sum()"))] == ["IPL102"]


def test_string_methods_and_legacy_new_make_no_tensor_from_an_opaque_callee() -> None:
    # precision30 (residual-flows, a torchvision copy): a log line `s = '...'.format(...)`
    # extended with `s += ...`, and the legacy `x.new()` filled in place, were opt-in IPL201s
    body = """
        import torch

        def step(model, x, meter):
            loss = model(x).sum()
            s = ('Epoch %s | '
                 'loss {{}}'.format(loss)) % meter
            s += ' | CE {{:.4f}}'.format(100 * loss)
            noise = {new}.resize_as_(x).uniform_()
            loss.backward()
            return s, noise
    """
    from inplace_lint.rules import all_rules
    from inplace_lint.settings import Settings

    every = Settings(enabled=frozenset(all_rules()))

    def every_code(source: str) -> list[str]:
        return [d.code for d in lint_source(textwrap.dedent(source), "t.py", every)]

    assert every_code(body.format(new="x.new()")) == []
    assert every_code(body.format(new="x.new(2, 3)")) == []
    # (an opaque callee's result filled in place is still the opt-in rule's: both writes)
    assert every_code(body.format(new="model.make(x)")) == ["IPL201", "IPL201"]


def test_a_state_dict_is_no_tensor() -> None:
    # precision31 (pytorch-inpainting-with-partial-conv): `sd[k] = sd[k].cpu()` over an
    # unknown object's `state_dict()` was an opt-in IPL202
    from inplace_lint.rules import all_rules
    from inplace_lint.settings import Settings

    every = Settings(enabled=frozenset(all_rules()))
    body = """
        import torch

        def to_cpu(obj):
            sd = obj.{method}()
            for k in sd.keys():
                sd[k] = sd[k].cpu()
            return sd
    """
    found = [
        d.code
        for d in lint_source(textwrap.dedent(body.format(method="state_dict")), "t.py", every)
    ]
    assert found == []
    found = [
        d.code for d in lint_source(textwrap.dedent(body.format(method="weights")), "t.py", every)
    ]
    assert found == ["IPL202"]


def test_a_list_repeated_keeps_its_tensors() -> None:
    # precision32 (neural-motifs' RPN head): `torch.cat([self.anchors[None]] * n, 0)` of a
    # buffer, handed with a `.data` view to a helper from another module, was an opt-in IPL201
    # on the helper's result written in place; a list display repeated holds the same tensors
    body = """
        import torch
        import torch.nn as nn
        from lib.box_utils import bbox_preds

        class RPNHead(nn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("anchors", torch.zeros(8, 4))
                self.scale = nn.Parameter(torch.ones(8, 4))

            def proposals(self, fmap):
                boxes = fmap[..., 2:].data
                stacked = torch.cat([{tensor}[None]] * fmap.size(0), 0)
                preds = bbox_preds(stacked, boxes)
                preds[0].clamp_(min=0)
                return preds
    """
    assert every_rule_codes(body.format(tensor="self.anchors")) == []
    # (a parameter repeated requires grad: the opaque helper's result may hold its graph)
    assert every_rule_codes(body.format(tensor="self.scale")) == ["IPL201"]


def test_a_chain_of_writes_to_a_leaf_reports_its_first_write_once() -> None:
    # p34 (pytorch_GAN_zoo): `avg_p.mul_(0.999).add_(...)` in a method nothing here calls was
    # two IPL203 at one position; IPL002 already reported such a chain once
    body = """
        import torch.nn as nn

        class T:
            def __init__(self):
                self.net = nn.Linear(3, 3)

            def update(self, src):
                for p, avg_p in zip(src.parameters(), self.net.parameters()):
                    avg_p.mul_(0.999).add_(p.data, alpha=0.001)
    """
    assert [c for _, c in codes(body)] == ["IPL203"]


def test_helpers_of_an_entry_method_nothing_here_calls_keep_their_errors() -> None:
    # `training_step` (a framework calls it) -> `shared_step`: the helper's write raises whenever
    # the step runs; a method called only by uncalled methods is not taken for dead code, and
    # the caller's hedge (IPL203) gives way to the helper's error at the same write
    body = """
        import torch
        import torch.nn as nn

        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(3, 3)
                self.w = torch.zeros(3, requires_grad=True)

            def shared_step(self, x):
                h = torch.sigmoid(self.fc(x))
                h.mul_(2)
                return h.sum()

            def training_step(self, batch, idx):
                return self.shared_step(batch)

            def _bump(self):
                self.w.add_(1)

            def learn(self):
                self._bump()
    """
    assert codes(body) == [(13, "IPL001"), (20, "IPL002")]


def test_a_module_or_none_is_that_module_where_it_is_called() -> None:
    # precision33 (C-3-Framework's SANet): `self.bn = nn.InstanceNorm2d(c, affine=True) if use_bn
    # else None`, called under `if self.use_bn:`, then `F.relu(x, inplace=True)`: an opt-in
    # IPL201 (an unknown module); InstanceNorm saves no output, a Sigmoid does (a configuration)
    body = """
        import torch.nn as nn
        import torch.nn.functional as F

        class BasicConv(nn.Module):
            def __init__(self, c, use_bn=False):
                super().__init__()
                self.use_bn = use_bn
                self.conv = nn.Conv2d(c, c, 3, bias=not use_bn)
                self.bn = {layer} if self.use_bn else None

            def forward(self, x):
                x = self.conv(x)
                if self.use_bn:
                    x = self.bn(x)
                return F.relu(x, inplace=True)
    """
    assert every_rule_codes(body.format(layer="nn.InstanceNorm2d(c, affine=True)")) == []
    assert every_rule_codes(body.format(layer="nn.Sigmoid()")) == ["IPL203"]


def test_methods_only_an_inference_step_calls_are_not_rerun_with_grad() -> None:
    # mmpretrain 1.2.0's CLIPZeroShot as shipped (nothing in the file calls it): `predict` builds
    # text prototypes from its own tokens with an in-place normalisation; mmengine runs it under
    # no_grad and no backward meets it. The same method called from `training_step` is run with
    # grad and its write raises (neural-CLBF's shape)
    body = """
        import torch
        import torch.nn as nn

        class Zero(nn.Module):
            def __init__(self):
                super().__init__()
                self.emb = nn.Embedding(10, 4)

            def forward(self, x, mode="predict"):
                if mode == "predict":
                    return self.predict(x)
                return self.training_step(x, 0)

            def feat(self, t):
                return self.emb(t)

            def prepare(self):
                f = self.feat(torch.tensor([1, 2]))
                f /= f.norm(dim=-1, keepdim=True)
                self.proto = f

            def predict(self, x):
                self.prepare()
                return x @ self.proto.t()

            def prepare_train(self):
                f = self.feat(torch.tensor([1, 2]))
                f /= f.norm(dim=-1, keepdim=True)
                return f.sum()

            def training_step(self, x, idx):
                return self.prepare_train()
    """
    assert codes(body) == [(29, "IPL001")]


def test_an_inference_step_nothing_here_calls_runs_without_grad() -> None:
    # mmocr 1.0.1's SequenceAttentionDecoder: the greedy `forward_test` writes the indices the
    # embedding saved; mmocr's base decoder (another file) calls it in eval mode and mmengine's
    # test loop runs under no_grad: no hedge. The same loop in a method of another name stays
    # an IPL203 (it raises if run with grad), and so do the helpers only it calls
    body = """
        import torch
        import torch.nn as nn

        class Decoder(nn.Module):
            def __init__(self):
                super().__init__()
                self.embedding = nn.Embedding(10, 4)
                self.prediction = nn.Linear(4, 10)

            def forward_test_step(self, seq, i):
                return self.prediction(self.embedding(seq)[:, i])

            def forward_test(self, feat):
                seq = feat.new_ones((feat.size(0), 3)).long()
                outputs = []
                for i in range(3):
                    step_out = self.forward_test_step(seq, i)
                    outputs.append(step_out)
                    _, max_idx = torch.max(step_out, dim=1)
                    if i < 2:
                        seq[:, i + 1] = max_idx
                return torch.stack(outputs, 1)

            def decode_greedy(self, feat):
                seq = feat.new_ones((feat.size(0), 3)).long()
                outputs = []
                for i in range(3):
                    step_out = self.forward_test_step(seq, i)
                    outputs.append(step_out)
                    _, max_idx = torch.max(step_out, dim=1)
                    if i < 2:
                        seq[:, i + 1] = max_idx
                return torch.stack(outputs, 1)
    """
    assert codes(body) == [(33, "IPL203")]


def test_a_leaf_copied_on_one_path_only_is_a_leaf_on_the_other() -> None:
    # lang2logic's seq2seq (issue 1): `enc_outputs = torch.zeros(..., requires_grad=True)`, moved
    # `if using_gpu:`; a CPU run writes a view of the leaf. Whether `using_gpu` holds is not
    # known here: IPL203 names the path. A test of the tensor's own grad (`if
    # x.requires_grad: x = x.clone()`) copies exactly what the leaf check refuses: quiet
    body = """
        import torch

        def step(n, y, using_gpu):
            out = torch.zeros((n, 3), requires_grad=True)
            if using_gpu:
                out = out.cuda()
            for i in range(n):
                out[i, :] = y
            return out.sum()

        def scaled(w, y, transposed):
            x = torch.zeros((3, 3), requires_grad=True)
            if transposed:
                x = x * 2
            else:
                y = y * 2
            x.add_(y)
            return x

        def guarded(n, y):
            out = torch.zeros((n, 3), requires_grad=True)
            if out.requires_grad:
                out = out.clone()
            out[0] = y
            return out.sum()

        def no_grad_fill(n, y, using_gpu):
            out = torch.zeros((n, 3), requires_grad=True)
            if using_gpu:
                out = out.cuda()
            with torch.no_grad():
                out[0] = y
            return out
    """
    found = [
        (d.span.start.row, d.code, d.message) for d in lint_source(textwrap.dedent(body), "t.py")
    ]
    assert [(row, code) for row, code, _ in found] == [(9, "IPL203"), (18, "IPL203")]
    assert "when `not using_gpu` holds" in found[0][2]
    assert "when `not transposed` holds" in found[1][2]
    assert "a leaf Variable that requires grad" in found[1][2]
    # the same choice written as a conditional expression
    inline = """
        import torch

        def step(n, y, use_gpu):
            out = torch.zeros((n, 3), requires_grad=True)
            out = out.cuda() if use_gpu else out
            out[0] = y
            return out.sum()

        def copied(n, y, use_gpu):
            out = torch.zeros((n, 3), requires_grad=True)
            out = out.cuda() if use_gpu else out.clone()
            out[0] = y
            return out.sum()
    """
    found = [
        (d.span.start.row, d.code, d.message) for d in lint_source(textwrap.dedent(inline), "t.py")
    ]
    assert [(row, code) for row, code, _ in found] == [(7, "IPL203")]
    assert "when `not use_gpu` holds" in found[0][2]


def test_a_leaf_moved_to_a_device_is_itself_on_its_own_device() -> None:
    # `leaf.to(device)` returns the leaf itself when it is already there (measured: `w.to("cpu")
    # is w`): a write to the result raises on a CPU run. A dtype conversion or a copy is not this
    body = """
        import torch

        def init_state(n, device):
            h = torch.zeros((n, 3), requires_grad=True).to(device)
            h[:, 0] = 1.0
            return h

        def init_copy(n, device):
            h = torch.zeros((n, 3), requires_grad=True).to(device).clone()
            h[:, 0] = 1.0
            return h

        def init_double(n):
            h = torch.zeros((n, 3), requires_grad=True).to(torch.float64)
            h[:, 0] = 1.0
            return h
    """
    found = [
        (d.span.start.row, d.code, d.message) for d in lint_source(textwrap.dedent(body), "t.py")
    ]
    assert [(row, code) for row, code, _ in found] == [(6, "IPL203")]
    assert "when `device == torch.zeros((n, 3), requires_grad=True).device` holds" in found[0][2]


def test_a_list_of_modules_passed_to_a_constructor_is_followed() -> None:
    # cgnet#63: `CGnet(arch)` with `arch = [nn.Linear(6, 16), nn.Tanh(), ...]` built by the
    # caller and kept as `nn.Sequential(*arch)`: the last child decides what the call saved of
    # its output (Tanh: its output; Linear: only its input)
    template = """
        import torch
        import torch.nn as nn

        class Net(nn.Module):
            def __init__(self, arch, prior):
                super().__init__()
                self.arch = nn.Sequential(*arch)
                self.prior = prior

            def forward(self, x):
                energy = self.arch(x)
                energy += self.prior(x)
                return energy

        def main():
            net = Net([nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 1), LAST], nn.Linear(6, 1))
            x = torch.randn(4, 6, requires_grad=True)
            net(x).sum().backward()
    """
    assert codes(template.replace("LAST", "nn.Tanh()")) == [(13, "IPL001")]
    assert codes(template.replace("LAST", "nn.Linear(1, 1)")) == []


def test_inference_path_does_not_depend_on_the_order_callers_are_visited() -> None:
    # ``_on_inference_path`` once shared one `seen` set across branches: in a diamond (two
    # methods reaching one step through a shared method) the second branch read False
    from inplace_lint.analysis.dataflow import _on_inference_path

    def sites(graph: dict[str, list[str]]) -> dict:
        return {
            key: [(caller, True, None, None) for caller in callers]
            for key, callers in graph.items()
        }

    diamond = {"M.c": ["M.a", "M.b"], "M.a": ["M.x"], "M.b": ["M.x"], "M.x": ["M.predict"]}
    assert _on_inference_path("M.c", sites(diamond), {})
    assert _on_inference_path("M.c", sites({**diamond, "M.c": ["M.b", "M.a"]}), {})
    # one caller off the path decides, wherever it sits
    mixed = {**diamond, "M.b": ["M.x", "M.forward"]}
    assert not _on_inference_path("M.c", sites(mixed), {})
    # recursion casts no vote; a cycle nothing else reaches is not on the path
    assert _on_inference_path("M.a", sites({"M.a": ["M.b", "M.predict"], "M.b": ["M.a"]}), {})
    assert _on_inference_path("M.b", sites({"M.a": ["M.b", "M.predict"], "M.b": ["M.a"]}), {})
    assert not _on_inference_path("M.a", sites({"M.a": ["M.b"], "M.b": ["M.a"]}), {})


def test_a_branch_that_says_the_tensor_is_no_leaf_writes_no_leaf() -> None:
    # lookalike32: `if not h.is_leaf: h.mul_(g)` (or `h.grad_fn is not None`, `h.is_leaf is
    # False`) runs only for a tensor with a graph; the parameter takes the other branch. The
    # same write without the test is IPL002
    body = """
        import torch

        def gate(h, g):
            if not h.is_leaf:
                h.mul_(g)
            else:
                h = h * g
            return h

        def gate_fn(h, g):
            if h.grad_fn is not None:
                h.mul_(g)
            return h

        def gate_is(h, g):
            if h.is_leaf is False:
                h.mul_(g)
            return h

        def plain(h, g):
            h.mul_(g)
            return h

        def main():
            p = torch.nn.Parameter(torch.randn(3))
            g = torch.rand(3)
            gate(p, g)
            gate_fn(p, g)
            gate_is(p, g)
            plain(p, g)
    """
    assert codes(body) == [(22, "IPL002")]


def test_isinstance_of_a_class_from_elsewhere_leaves_the_tensor_unknown() -> None:
    # deepinv's RAM model (prec37): `TensorList` comes from the package, a plain list class; in
    # the branch `y` may be it, so iterating it is no longer known to unbind a tensor
    template = """
        import torch
        import torch.nn as nn
        from torch.masked import MaskedTensor
        from deepinv.utils import TensorList

        class Rescale(nn.Module):
            def forward(self, y):
                if isinstance(y, CLASS):
                    for yi in y:
                        yi /= 2.0
                return y
    """
    assert codes(template.replace("CLASS", "TensorList")) == []
    # a tensor class keeps it a tensor, and so does a class named as one
    for cls in ("torch.Tensor", "MaskedTensor", "(TensorList, torch.Tensor)"):
        assert codes(template.replace("CLASS", cls)) == [(11, "IPL004")], cls
    # past the branch, the tensor is what it was
    after = template.replace("CLASS", "TensorList").replace(
        "return y", "for z in y:\n                    z /= 2.0\n                return y"
    )
    assert codes(after) == [(13, "IPL004")]


def test_isinstance_of_a_local_plain_class_is_false_for_a_tensor() -> None:
    source = """
        import torch
        import torch.nn as nn

        class Bag(Base):
            pass

        class Plain:
            pass

        class Rescale(nn.Module):
            def forward(self, y):
                if isinstance(y, (Plain, list)):
                    for yi in y:
                        yi /= 2.0
                if isinstance(y, Bag):
                    for yi in y:
                        yi /= 3.0
                return y
    """
    # `Plain` on no base: the branch cannot run for a tensor; `Bag` on an unknown base may be a
    # tensor class: the tensor is no longer known there
    assert codes(source) == []
    assert "IPL004" not in every_rule_codes(source)


def test_a_leaf_write_in_a_function_nothing_here_calls_is_a_hedge() -> None:
    # nni's `replace_conv2d` (prec38): a library function, run by its callers in other files
    # under `no_grad`; with grad it would raise, so IPL203 (as for an uncalled method), not the
    # IPL002 promise. A script's `main()` is run as it is, with grad: IPL002
    template = """
        import torch.nn as nn

        def NAME(conv, weight):
            new_conv = nn.Conv2d(conv.in_channels, conv.out_channels, 3)
            new_conv.weight.copy_(weight)
            return new_conv
    """
    assert codes(template.replace("NAME", "replace_conv2d")) == [(6, "IPL203")]
    assert codes(template.replace("NAME", "main")) == [(6, "IPL002")]
    called = template.replace("NAME", "replace_conv2d").replace(
        "return new_conv",
        "return new_conv\n\n        conv = replace_conv2d(nn.Conv2d(1, 1, 3), None)",
    )
    assert codes(called) == [(6, "IPL002")]


def test_class_apply_without_forward_does_not_crash() -> None:
    # tensorly-torch's TensorDropout: a plain class's classmethod named `apply`, no `forward`
    # (an internal error once the view returns of a Function's forward were read, prec39)
    source = """
        import torch

        class TensorDropout:
            @classmethod
            def apply(cls, module, proba):
                return module

        def drop(weight):
            w = weight * 2
            TensorDropout.apply(w, 0.5)
            w += 1
            return w
    """
    assert codes(source) == []


def test_add_module_of_an_unknown_child_under_a_name_does_not_crash() -> None:
    # pytorchcv's models: `self.features.add_module("init_block", InitBlock(...))` of a class
    # from another file (an internal error once the container growth was shared, corpus p39)
    source = """
        import torch
        import torch.nn as nn
        from .common import conv3x3_block

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.features = nn.Sequential()
                self.features.add_module("init_block", conv3x3_block(3, 8))
                self.features.add_module("act", nn.ReLU(inplace=True))

            def forward(self, x):
                return self.features(x)
    """
    assert codes(source) == []


def test_item_of_an_empty_list_updated_at_an_unknown_index_does_not_crash() -> None:
    # deepchem's `sum_var[j] += v` on a list the analysis knows empty (an IndexError once a list
    # whose every item was saved stood for its items, corpus p39)
    source = """
        import torch

        def accumulate(model, batches):
            sum_var = []
            for batch in batches:
                out = model(batch)
                for j, v in enumerate(out):
                    sum_var[j] += v
            return sum_var
    """
    assert codes(source) == []


REQUIRED_MASK = """
    import torch
    import torch.nn as nn

    class Predictor(nn.Module):
        def __init__(self):
            super().__init__()
            self.out = nn.Linear(4, 1)

        def forward(self, hidden, mask=None, target_length=None):
            with torch.autocast("cpu", enabled=False):
                alphas = torch.nn.functional.relu(torch.sigmoid(self.out(hidden)) - 0.1)
                if mask is not None:
                    mask = mask.transpose(-1, -2).float()
                    alphas = alphas * mask
                alphas = alphas.squeeze(-1)
                {use}
                token_num = alphas.sum(-1)
                if target_length is not None:
                    alphas *= (target_length / token_num)[:, None]
            return alphas, token_num
"""


def test_a_parameter_the_body_dereferences_unconditionally_is_not_none() -> None:
    # funasr's CIF predictor (prec44): `mask.squeeze(-1)` after `if mask is not None:` raises on
    # the path where the mask is None, so the relu output is never what `alphas *=` writes
    assert codes(REQUIRED_MASK.replace("{use}", "mask = mask.squeeze(-1)")) == []
    # passed on to a callee first (it does not rebind it): still required
    passed = "self.log(mask)\n                mask = mask.squeeze(-1)"
    assert codes(REQUIRED_MASK.replace("{use}", passed)) == []


def test_a_parameter_dereferenced_only_conditionally_or_after_a_rebinding_may_be_none() -> None:
    assert codes(REQUIRED_MASK.replace("{use}", "pass")) == [(20, "IPL203")]
    guarded = "mask = mask.squeeze(-1) if mask is not None else None"
    assert codes(REQUIRED_MASK.replace("{use}", guarded)) == [(20, "IPL203")]
    rebound = "mask = torch.ones(2)\n                mask = mask.squeeze(-1)"
    assert codes(REQUIRED_MASK.replace("{use}", rebound)) == [(21, "IPL203")]


def test_a_required_parameter_scan_reads_every_binding_statement() -> None:
    # `except ... as err`, `with ... as f`, imports and `global` bind names: the scan for
    # parameters the body dereferences read them (an AttributeError on `except ... as` took
    # whole files down to IPL903 on timm, torchvision and transformers before release)
    source = """
        import torch

        def load(path, mask=None):
            global CACHE
            import os.path as osp
            try:
                data = torch.load(path)
            except OSError as err:
                data = None
            with open(path) as handle:
                handle.read()
            mask = mask.bool()
            return data, mask
    """
    assert codes(source) == []


def test_a_step_on_the_last_pass_of_a_retained_loop_follows_every_backward() -> None:
    # lookalike48: `if i == n - 1: opt.step()` after each chunk's backward through one retained
    # graph runs once, after the last backward: no later backward meets the updated weights
    source = """
        import torch
        import torch.nn as nn

        def main():
            net = nn.Linear(4, 1)
            opt = torch.optim.SGD(net.parameters(), lr=0.1)
            h = net(torch.randn(3, 4, requires_grad=True))
            n = 3
            for i in range(n):
                (h * (i + 1)).sum().backward(retain_graph=(i < n - 1))
                if i == n - 1:
                    opt.step()
    """
    assert codes(source) == []
    # a step on every pass but the last is before a later backward
    assert codes(source.replace("if i == n - 1:", "if i < n - 1:")) == [(13, "IPL006")]


INIT_FILTER = """
    import torch
    import torch.nn as nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)
            self.head = nn.Sequential(nn.LayerNorm(4), nn.Linear(4, 2))
            self.apply(self._init_weights)

        def _init_weights(self, m):
            if isinstance(m, {cls}):
                m.weight.mul_(0.5)

        def forward(self, x):
            return self.head(self.fc(x))
"""


def test_an_init_callback_branch_for_a_layer_the_model_lacks_never_runs() -> None:
    # lookalike48: `self.apply(self._init_weights)` visits the model's own submodules; a branch
    # for a layer class none of them is never runs
    assert codes(INIT_FILTER.replace("{cls}", "nn.Conv2d")) == []
    assert codes(INIT_FILTER.replace("{cls}", "(nn.Conv1d, nn.Conv2d)")) == []
    assert codes(INIT_FILTER.replace("{cls}", "nn.LayerNorm")) == [(14, "IPL002")]
    assert codes(INIT_FILTER.replace("{cls}", "(nn.Conv2d, nn.Linear)")) == [(14, "IPL002")]
    # a submodule of a local class: its layers are not known here, the branch may run
    local = INIT_FILTER.replace("nn.Linear(4, 4)", "Block()").replace(
        "class Net", "class Block(nn.Module):\n        pass\n\n    class Net"
    )
    assert codes(local.replace("{cls}", "nn.Conv2d"))[-1][1] == "IPL002"


def test_any_item_of_a_comprehension_list_is_made_as_its_first() -> None:
    # lookalike48: `outs[1]` of `[torch.tanh(x * k) for k in range(3)]` is a tanh output too
    source = """
        import torch

        def main():
            x = torch.randn(3, 4, requires_grad=True)
            outs = [torch.tanh(x * k) for k in range(3)]
            outs[1] += 1
            outs[1].sum().backward()
    """
    assert codes(source) == [(7, "IPL001")]


def test_len_of_an_optional_argument_makes_it_required() -> None:
    # lookalike48: `len(lengths)` raises on None, so the `lengths is None` path never completes
    source = """
        import torch

        def score(x, lengths=None):
            y = torch.sigmoid(x)
            if lengths is None:
                y += 1.0
            n = len(lengths)
            return y[:n].sum()

        def main():
            x = torch.randn(3, 4, requires_grad=True)
            score(x, [1, 2]).backward()
    """
    assert codes(source) == []
    assert codes(source.replace("n = len(lengths)", "n = 2")) == [(7, "IPL203")]


def test_an_init_callback_branch_for_a_local_class_reads_its_parameters() -> None:
    # lookalike48: `if isinstance(m, Block): m.scale.mul_(0.5)` writes Block's own parameter
    source = """
        import torch
        import torch.nn as nn

        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.scale = nn.Parameter(torch.ones(4))

            def forward(self, x):
                return x * self.scale

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.block = {child}
                self.apply(self._init_weights)

            def _init_weights(self, m):
                if isinstance(m, Block):
                    m.scale.mul_(0.5)

            def forward(self, x):
                return self.block(x)
    """
    assert codes(source.replace("{child}", "Block()")) == [(21, "IPL002")]
    # a model made of framework layers only has no Block: the branch never runs
    assert codes(source.replace("{child}", "nn.Linear(4, 4)")) == []


def test_a_layer_switched_in_place_after_construction_writes_in_place() -> None:
    # BDRAR#2, MVANet#2 (recall46): `m.inplace = True` set after the layers were built
    attribute = """
        import torch
        import torch.nn as nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(3, 3)
                self.act = nn.Sigmoid()
                self.drop = nn.Dropout(0.5)
                self.drop.inplace = {flag}

            def forward(self, x):
                return self.drop(self.act(self.fc(x)))
    """
    assert codes(attribute.replace("{flag}", "True")) == [(14, "IPL001")]
    assert codes(attribute.replace("{flag}", "False")) == []
    item = """
        import torch
        import torch.nn as nn

        def main():
            net = nn.Sequential(nn.Linear(3, 3), nn.ReLU(), nn.Dropout(0.5), nn.Linear(3, 3))
            net[2].inplace = True
            net(torch.rand(3)).sum().backward()
    """
    assert codes(item) == [(6, "IPL001")]
    # a loop over another model's modules leaves this one's layers alone
    other = """
        import torch
        import torch.nn as nn

        class Net(nn.Module):
            def __init__(self, backbone):
                super().__init__()
                self.act = nn.Sigmoid()
                self.drop = nn.Dropout(0.5)
                for m in backbone.modules():
                    if isinstance(m, nn.Dropout):
                        m.inplace = True

            def forward(self, x):
                return self.drop(self.act(x))
    """
    assert codes(other) == []


def test_an_optimizer_subclass_step_writing_a_local_buffer_does_not_crash() -> None:
    # lookalike49: `buf = torch.zeros_like(p); buf.add_(p.grad)` in a custom optimizer's step
    # (an IPL903 on `.startswith` of an int storage); without `no_grad` the parameter write is a
    # leaf write
    source = """
        import torch
        import torch.nn as nn
        from torch.optim import Optimizer

        class MomentumSGD(Optimizer):
            def __init__(self, params, lr=0.01):
                super().__init__(params, dict(lr=lr))

            @torch.no_grad()
            def step(self):
                for group in self.param_groups:
                    for p in group["params"]:
                        buf = torch.zeros_like(p)
                        buf.add_(p.grad)
                        p.add_(buf, alpha=-group["lr"])

        def main():
            model = nn.Linear(4, 1)
            opt = MomentumSGD(model.parameters())
            model(torch.randn(5, 4)).pow(2).mean().backward()
            opt.step()
    """
    assert codes(source) == []
    assert codes(source.replace("@torch.no_grad()", "")) == [(16, "IPL002")]


def test_a_layer_appended_under_a_constructor_option_is_an_alternative() -> None:
    # lookalike49: `if act: layers.append(nn.ReLU(inplace=True))` after a Sigmoid, then
    # `nn.Sequential(*layers)`: the write happens only when the option holds (IPL203), not in
    # every configuration; built with the option on, it is certain
    source = """
        import torch
        import torch.nn as nn

        class Block(nn.Module):
            def __init__(self, act=False):
                super().__init__()
                layers = [nn.Linear(4, 4), nn.Sigmoid()]
                if act:
                    layers.append(nn.ReLU(inplace=True))
                self.net = nn.Sequential(*layers)

            def forward(self, x):
                return self.net(x)

        def main():
            Block()(torch.randn(2, 4)).sum().backward()
    """
    assert codes(source) == [(10, "IPL203")]
    assert codes(source.replace("Block()(", "Block(act=True)(")) == [(10, "IPL001")]


def test_an_option_chain_choosing_a_container_built_per_inner_option_keeps_its_saves() -> None:
    # dgl's LapPosEncoder (prec44, a true IPL203 lost for a while): `if model_type ==
    # "Transformer": ... elif model_type == "DeepSet": layers per num_layer, both ending in a
    # ReLU`, then the ReLU's output written in place
    source = """
        import torch
        import torch.nn as nn

        class Encoder(nn.Module):
            def __init__(self, model_type, num_layer):
                super().__init__()
                self.model_type = model_type
                if model_type == "Transformer":
                    self.pe = nn.Identity()
                elif model_type == "DeepSet":
                    layers = []
                    if num_layer == 1:
                        layers.append(nn.ReLU())
                    else:
                        layers.append(nn.Linear(4, 4))
                        layers.append(nn.ReLU())
                    self.pe = nn.Sequential(*layers)
                else:
                    raise ValueError(model_type)

            def forward(self, x, mask):
                x = self.pe(x)
                x[mask] = 0
                return x.sum()
    """
    assert codes(source) == [(24, "IPL203")]


def test_one_init_callback_applied_by_two_models_is_run_for_each_models_layers() -> None:
    # the callback's run is memoised by its argument: a model without a Conv2d (whose branch
    # never runs) must not stand for one with a Conv2d, whichever class comes first
    model_a = """
        class A(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)
                self.apply(init)
    """
    model_b = """
        class B(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(3, 3, 1)
                self.apply(init)
    """
    head = """
        import torch
        import torch.nn as nn

        def init(m):
            if isinstance(m, nn.Conv2d):
                m.weight.mul_(0.5)
    """
    for first, second in ((model_a, model_b), (model_b, model_a)):
        assert codes(head + first + second) == [(7, "IPL002")]
