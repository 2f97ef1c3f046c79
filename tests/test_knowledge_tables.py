"""The PyTorch knowledge tables and their query API, without torch.

Every fact asserted here was measured under torch 2.13 (tests/runtime/test_torch_surface.py proves
the whole surface map by running it). The last tests regenerate torch_ops.json from the installed
torch, when there is one, and require it to be byte-for-byte the committed file.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path

import pytest

from inplace_lint.knowledge import (
    ALWAYS,
    UNKNOWN,
    ModuleFacts,
    OpFacts,
    binary_operator,
    is_torch_inplace_method,
    tensor_method,
    torch_facts,
    torch_function,
    torch_module,
)

REPO = Path(__file__).resolve().parent.parent
OPS = torch_facts._OPS_PATH
GENERATOR = REPO / "scripts" / "gen_autograd_tables.py"


def F(name: str, **kw: object) -> OpFacts | None:
    return torch_function(f"torch.nn.functional.{name}", **kw)


# ---------------------------------------------------------------------------------------------
# torch_function


def test_sigmoid_saves_its_output_only() -> None:
    facts = torch_function("torch.sigmoid")
    assert facts is not None
    assert facts.params == ("input",)
    assert facts.saves == {} and facts.saves_output
    assert facts.out_param == "out" and facts.differentiable and facts.inplace_param is None


def test_relu_and_its_inplace_forms() -> None:
    assert F("relu").saves_output and F("relu").inplace_param is None
    inplace = F("relu", inplace=True)
    assert inplace.name == "relu_" and inplace.inplace_param == "input" and inplace.saves_output
    assert torch_function("torch.relu_").inplace_param == "input"
    assert F("relu_").inplace_param == "input"


def test_relu6_inplace_saves_a_clone() -> None:
    """ReLU6(inplace=True) is hardtanh_: it clones its input, so a later write is fine."""
    facts = F("relu6", inplace=True)
    assert facts.name == "hardtanh_" and facts.inplace_param == "input"
    assert facts.inplace_saves_clone and not facts.saves_output and facts.saves == {}
    assert F("relu6").saves == {"input": ALWAYS}


def test_activations_that_save_the_input() -> None:
    for name in ("gelu", "silu", "leaky_relu", "elu", "hardtanh", "softplus", "hardswish", "mish"):
        facts = F(name)
        assert facts.saves == {"input": ALWAYS} and not facts.saves_output, name


def test_inplace_activations_that_save_their_output() -> None:
    for name in ("leaky_relu", "elu", "selu", "celu"):
        facts = F(name, inplace=True)
        assert facts.inplace_param == "input" and facts.saves_output, name
    for name in ("silu", "hardswish", "hardsigmoid", "mish", "hardtanh", "threshold"):
        facts = F(name, inplace=True)
        assert facts.inplace_param == "input" and facts.inplace_saves_clone, name
        assert not facts.saves_output, name


def test_softmax_family_saves_the_output() -> None:
    for facts in (
        F("softmax"),
        F("log_softmax"),
        torch_function("torch.softmax"),
        tensor_method("softmax"),
        torch_function("torch.exp"),
        torch_function("torch.tanh"),
    ):
        assert facts.saves_output and facts.saves == {}


def test_matmul_decomposes_to_mm() -> None:
    facts = torch_function("torch.matmul")
    assert facts.name == "mm" and facts.params == ("input", "other")
    assert facts.saves == {"input": ("other",), "other": ("input",)}


def test_linear_saves_each_operand_when_the_other_requires_grad() -> None:
    facts = F("linear")
    assert facts.name == "addmm" and facts.params == ("input", "weight", "bias")
    assert facts.saves == {"input": ("weight",), "weight": ("input",)}


def test_convolution_and_norms() -> None:
    conv = F("conv2d")
    assert conv.saves == {"input": ALWAYS, "weight": ALWAYS}
    bn = F("batch_norm")
    assert set(bn.saves) == {"input", "weight", "running_mean", "running_var"}
    assert all(c == ALWAYS for c in bn.saves.values())
    assert set(F("layer_norm").saves) == {"input", "weight", "bias"}
    assert F("instance_norm").saves == {"input": ALWAYS}


def test_dropout_saves_only_its_mask() -> None:
    assert F("dropout").saves == {} and not F("dropout").saves_output
    inplace = F("dropout", inplace=True)
    assert inplace.inplace_param == "input" and inplace.saves == {}


def test_indices_masks_and_conditions() -> None:
    assert F("embedding").saves == {"input": ALWAYS}  # the indices
    assert tensor_method("masked_fill").saves == {"mask": ALWAYS}
    assert torch_function("torch.where").saves == {"condition": ALWAYS}
    assert F("cross_entropy").saves == {"target": ALWAYS, "weight": ALWAYS}


def test_constructors_save_nothing_and_do_not_require_grad() -> None:
    for name in ("zeros", "ones", "empty", "full", "rand", "randn", "arange", "tensor"):
        facts = torch_function(f"torch.{name}")
        assert facts is not None and facts.saves == {} and not facts.differentiable, name
        assert torch_function(f"torch.{name}", frozenset({"requires_grad"})).differentiable
    assert not torch_function("torch.zeros_like").differentiable


def test_cat_and_sum_save_nothing() -> None:
    for name in ("cat", "stack", "sum", "mean", "add", "sub"):
        facts = torch_function(f"torch.{name}")
        assert facts.saves == {} and not facts.saves_output, name
    assert torch_function("torch.cat").params == ("tensors", "dim")


def test_split_family() -> None:
    assert torch_function("torch.split").multi_view_of == "tensor"
    assert torch_function("torch.chunk").multi_view_of == "input"
    assert torch_function("torch.unbind").multi_view_of == "input"
    for name in ("tensor_split", "hsplit", "vsplit", "dsplit"):
        facts = torch_function(f"torch.{name}")
        assert facts.view_of == "input" and facts.multi_view_of is None, name


def test_submodules_and_aliases() -> None:
    assert torch_function("torch.linalg.vector_norm").saves_output
    assert torch_function("torch.special.erfcx").saves == {"input": ALWAYS}
    assert torch_function("torch.special.expit") is None  # an unmapped composite
    assert torch_function("torch.multiply") == torch_function("torch.mul")
    assert torch_function("torch.square").saves == {"input": ALWAYS}
    assert tensor_method("clip") == tensor_method("clamp")
    assert torch_function("torch.Tensor.add") == tensor_method("add")
    assert F("hardshrink").saves == {"input": ALWAYS}  # re-exported torch.hardshrink
    assert F("glu").params == ("input", "dim")  # torch._C._nn.glu


def test_unknown_callables() -> None:
    assert torch_function("numpy.exp") is None
    assert torch_function("torch.no_such_function") is None
    assert torch_function("torch.einsum") is None  # variadic: deliberately unknown
    assert torch_function("torch.cosine_similarity") is None  # an unmapped composite
    assert tensor_method("no_such_method") is None


def test_pow_result_is_conditional_and_reported_unsaved() -> None:
    facts = binary_operator("**")
    assert facts.saves == {"self": ALWAYS, "exponent": ALWAYS} and not facts.saves_output


def test_results_are_cached_and_frozen() -> None:
    assert torch_function("torch.sigmoid") is torch_function("torch.sigmoid")
    with pytest.raises(AttributeError):
        torch_function("torch.sigmoid").name = "x"  # type: ignore[misc]


# ---------------------------------------------------------------------------------------------
# tensor_method


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("sigmoid", {"saves_output": True}),
        ("add_", {"inplace_param": "self"}),
        ("view", {"view_of": "self"}),
        ("reshape", {"view_of": "self"}),
        ("flatten", {"view_of": "self"}),
        ("t", {"view_of": "self"}),
        ("T", {"view_of": "self"}),
        ("mT", {"view_of": "self"}),
        ("expand_as", {"view_of": "self"}),
        ("chunk", {"multi_view_of": "self"}),
        ("split", {"multi_view_of": "self"}),
        ("unbind", {"multi_view_of": "self"}),
        ("__iter__", {"multi_view_of": "self"}),
        ("detach", {"version_alias_of": "self", "differentiable": False}),
        ("clone", {}),
        ("contiguous", {}),
        ("to", {}),
        ("masked_fill_", {"inplace_param": "self", "saves": {"mask": ALWAYS}}),
        ("index_put_", {"inplace_param": "self", "saves": {"indices": ALWAYS}}),
        ("copy_", {"inplace_param": "self"}),
        ("zero_", {"inplace_param": "self"}),
        ("fill_", {"inplace_param": "self"}),
        ("requires_grad_", {"differentiable": False}),
        ("detach_", {"differentiable": False}),
        ("mul", {"saves": {"self": ("other",), "other": ("self",)}}),
        (
            "mul_",
            {"inplace_param": "self", "saves": {"other": ("self",)}, "inplace_saves_clone": True},
        ),
        ("sin_", {"inplace_param": "self", "inplace_saves_clone": True}),
        ("relu_", {"inplace_param": "self", "saves_output": True}),
        ("__setitem__", {"inplace_param": "self", "saves": {"key": ALWAYS}}),
        ("__getitem__", {"view_of": "self", "saves": {"key": ALWAYS}}),
        ("__rtruediv__", {}),
        ("__rpow__", {"saves": {"self": ALWAYS}, "saves_output": True}),
        ("numpy", {"returns_tensor": False, "differentiable": False}),
        ("argmax", {"differentiable": False}),
        ("eq", {"differentiable": False}),
    ],
)
def test_tensor_method(name: str, expected: dict[str, object]) -> None:
    facts = tensor_method(name)
    assert facts is not None
    defaults = OpFacts(name="", params=())
    for field in (
        "saves",
        "saves_output",
        "inplace_param",
        "inplace_saves_clone",
        "view_of",
        "multi_view_of",
        "version_alias_of",
        "differentiable",
        "returns_tensor",
    ):
        want = expected.get(field, getattr(defaults, field))
        assert getattr(facts, field) == want, f"{name}.{field}"
    assert facts.params[0] == "self"


def test_tensor_method_inplace_flag() -> None:
    assert tensor_method("add", inplace=True) == tensor_method("add_")


# ---------------------------------------------------------------------------------------------
# binary_operator


def test_binary_operators() -> None:
    assert binary_operator("+").name == "add" and binary_operator("+").inplace_param is None
    assert binary_operator("+", augmented=True).name == "add_"
    assert binary_operator("+", augmented=True).inplace_param == "self"
    assert binary_operator("*").saves == {"self": ("other",), "other": ("self",)}
    assert binary_operator("/").saves == {"self": ("other",), "other": ALWAYS}
    assert binary_operator("@").name == "mm"
    for op in ("-", "*", "/", "//", "%", "**", "&", "|", "^", "<<", ">>"):
        assert binary_operator(op) is not None, op
        assert binary_operator(op, augmented=True).inplace_param == "self", op
    assert not binary_operator("&").differentiable
    assert binary_operator("<>") is None


def test_matmul_assignment_is_not_inplace() -> None:
    facts = binary_operator("@", augmented=True)
    assert facts is not None and facts.inplace_param is None
    assert facts == binary_operator("@")


def test_operator_dunders() -> None:
    assert tensor_method("__iadd__") == binary_operator("+", augmented=True)
    assert tensor_method("__mul__") == binary_operator("*")


# ---------------------------------------------------------------------------------------------
# torch_module


def test_relu_module() -> None:
    assert torch_module("torch.nn.ReLU", {}).call.saves_output
    assert torch_module("torch.nn.ReLU", {}).call.inplace_param is None
    for keywords in ({"inplace": True}, {"0": True}, {0: True}):
        facts = torch_module("torch.nn.ReLU", keywords)
        assert facts.call.inplace_param == "input" and facts.call.saves_output
    assert torch_module("torch.nn.ReLU", {"inplace": UNKNOWN}).call.inplace_param is None
    assert torch_module("torch.nn.ReLU", {"inplace": object()}).call.inplace_param is None
    assert not torch_module("torch.nn.ReLU", {}).has_parameters


def test_relu6_module_inplace_clones() -> None:
    call = torch_module("torch.nn.ReLU6", {"inplace": True}).call
    assert call.inplace_param == "input" and call.inplace_saves_clone and not call.saves_output


def test_conv_module() -> None:
    facts = torch_module("torch.nn.Conv2d", {"0": 3, "1": 8, "2": 3})
    assert facts.call.params == ("input",)
    assert facts.call.saves == {"input": ALWAYS}
    assert facts.saved_attributes == ("weight",) and facts.has_parameters


def test_linear_module() -> None:
    facts = torch_module("torch.nn.Linear", {"0": 4, "1": 2})
    assert facts.call.saves == {"input": ALWAYS}  # the weight requires grad
    assert facts.saved_attributes == ("weight",)  # when the input requires grad
    assert torch_module("torch.nn.Linear", {"bias": False}).call.saves == {"input": ALWAYS}


def test_batchnorm_module() -> None:
    facts = torch_module("torch.nn.BatchNorm2d", {"0": 16})
    assert facts.call.saves == {"input": ALWAYS}
    assert facts.saved_attributes == ("weight",)
    assert facts.inplace_buffers == ("running_mean", "running_var")
    no_affine = torch_module("torch.nn.BatchNorm2d", {"affine": False})
    assert no_affine.saved_attributes == () and not no_affine.has_parameters
    assert no_affine.inplace_buffers == ("running_mean", "running_var")
    no_stats = torch_module("torch.nn.BatchNorm2d", {"track_running_stats": False})
    assert no_stats.saved_attributes == ("weight",) and no_stats.inplace_buffers == ()


def test_instancenorm_saves_no_buffer() -> None:
    facts = torch_module("torch.nn.InstanceNorm2d", {"track_running_stats": True, "affine": True})
    assert facts.inplace_buffers == () and facts.saved_attributes == ()
    assert facts.call.saves == {"input": ALWAYS} and facts.has_parameters


def test_layernorm_module() -> None:
    facts = torch_module("torch.nn.LayerNorm", {"0": 8})
    assert facts.call.saves == {"input": ALWAYS}
    assert set(facts.saved_attributes) == {"weight", "bias"}
    assert torch_module("torch.nn.LayerNorm", {"elementwise_affine": False}).saved_attributes == ()


def test_modules_that_save_nothing_of_the_input() -> None:
    for name, keywords in (
        ("Dropout", {}),
        ("Dropout", {"inplace": True}),
        ("Upsample", {}),
        ("AdaptiveAvgPool2d", {"0": 1}),
        ("AdaptiveAvgPool2d", {"output_size": (1, 1)}),
        ("Flatten", {}),
    ):
        facts = torch_module(f"torch.nn.{name}", keywords)
        assert facts.call.saves == {} and not facts.call.saves_output, (name, keywords)
    assert torch_module("torch.nn.Dropout", {"inplace": True}).call.inplace_param == "input"
    assert torch_module("torch.nn.AdaptiveAvgPool2d", {"0": 2}).call.saves == {"input": ALWAYS}


def test_modules_that_save_the_output_or_input() -> None:
    for name in ("Sigmoid", "Tanh", "Softmax", "LogSoftmax"):
        assert torch_module(f"torch.nn.{name}", {}).call.saves_output, name
    for name in ("GELU", "SiLU", "LeakyReLU", "MaxPool2d", "AvgPool2d"):
        assert torch_module(f"torch.nn.{name}", {}).call.saves == {"input": ALWAYS}, name


def test_views_and_containers() -> None:
    assert torch_module("torch.nn.Flatten", {}).call.view_of == "input"
    assert torch_module("torch.nn.Identity", {}).call.view_of == "input"
    for name in ("Sequential", "ModuleList", "ModuleDict"):
        facts = torch_module(f"torch.nn.{name}", {})
        assert isinstance(facts, ModuleFacts) and facts.container
    assert torch_module("torch.nn.NoSuchModule", {}) is None
    assert torch_module("torch.nn.Embedding", {"0": 10, "1": 3}).call.saves == {"input": ALWAYS}


# ---------------------------------------------------------------------------------------------
# is_torch_inplace_method


def test_is_torch_inplace_method() -> None:
    for name in (
        "add_",
        "mul_",
        "copy_",
        "zero_",
        "fill_",
        "masked_fill_",
        "index_put_",
        "clamp_",
        "relu_",
        "__setitem__",
        "__iadd__",
        "__imul__",
        "__iand__",
    ):
        assert is_torch_inplace_method(name), name
    for name in (
        "add",
        "requires_grad_",
        "detach_",
        "detach",
        "clone",
        "retain_grad",
        "__imatmul__",
    ):
        assert not is_torch_inplace_method(name), name


# ---------------------------------------------------------------------------------------------
# The tables themselves


def _table() -> dict:
    return json.loads(OPS.read_text(encoding="ascii"))


def test_table_header_and_format() -> None:
    text = OPS.read_text(encoding="ascii")
    table = json.loads(text)
    assert table["format"] == 1 and table["generator"] == "scripts/gen_autograd_tables.py"
    assert table["torch"].count(".") == 2 and "+" not in table["torch"]
    assert set(table["sources"]) == {"derivatives.yaml", "native_functions.yaml", "tags.yaml"}
    assert text.endswith("}\n") and "\r" not in text
    names = list(table["names"])
    assert names == sorted(names)
    # one line per op keeps diffs readable
    assert text.count("\n") == len(table["names"]) + len(table["overloads"]) + 10


def test_table_is_small_and_drops_internals() -> None:
    assert OPS.stat().st_size < 600_000
    names = _table()["names"]
    assert not any(n.endswith("_backward") or n.startswith("_foreach_") for n in names)
    assert not any("mkldnn" in n or "cudnn" in n or "miopen" in n for n in names)
    assert not any("sparse" in n or "quantize" in n for n in names)
    assert {"relu", "sigmoid", "mm", "addmm", "convolution", "native_batch_norm"} <= set(names)


def test_runtime_reads_the_names_section_alone() -> None:
    assert torch_facts._OVERLOADS_MARK in OPS.read_text(encoding="ascii")
    assert torch_facts._ops() == _table()["names"]


def test_surface_refers_to_real_table_entries() -> None:
    surface = torch_facts._surface()
    names = _table()["names"]
    for section in ("functions", "methods"):
        for key, entry in surface[section].items():
            for field in ("op", "inplace_op"):
                value = entry.get(field)
                if value not in (None, "same"):
                    assert value in names, f"{section}.{key}.{field} = {value}"
    for alias, target in surface["aliases"].items():
        assert target in names, alias
    for op, entry in surface["operators"].items():
        assert tensor_method(entry["method"]) is not None, op
    for qualname, entry in surface["modules"].items():
        if "call" in entry:
            assert torch_function(entry["call"]) is not None, qualname
        assert torch_module(qualname, {}) is not None, qualname


def test_loading_is_fast() -> None:
    # CPU time, best of five: other processes on a shared machine do not count against us.
    best = float("inf")
    for _ in range(5):
        torch_facts._ops.cache_clear()
        torch_facts._surface.cache_clear()
        start = time.process_time()
        torch_facts._ops()
        torch_facts._surface()
        best = min(best, time.process_time() - start)
    torch_facts.torch_function.cache_clear()
    torch_facts.tensor_method.cache_clear()
    torch_facts.binary_operator.cache_clear()
    torch_facts._module.cache_clear()
    torch_facts._inplace_methods.cache_clear()
    assert best < 0.030, f"loading the tables took {best * 1000:.1f} ms"


def test_no_torch_import() -> None:
    code = (
        "import sys, inplace_lint.knowledge as k\n"
        "k.torch_function('torch.sigmoid'); k.torch_module('torch.nn.ReLU', {})\n"
        "assert 'torch' not in sys.modules and 'torchgen' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)


# ---------------------------------------------------------------------------------------------
# Regeneration: the committed table is exactly what the generator makes from the installed torch.


def _installed_torch() -> str:
    pytest.importorskip("torchgen", reason="torch is not installed: cannot regenerate the table")
    version = metadata.version("torch").split("+")[0]
    if version != _table()["torch"]:
        pytest.skip(f"table generated from torch {_table()['torch']}, installed {version}")
    return version


def test_regeneration_is_byte_for_byte(tmp_path: Path) -> None:
    _installed_torch()
    out = tmp_path / "torch_ops.json"
    subprocess.run(
        [sys.executable, str(GENERATOR), "-o", str(out)], check=True, cwd=REPO, capture_output=True
    )
    assert out.read_bytes() == OPS.read_bytes(), (
        "torch_ops.json is stale: run `python scripts/gen_autograd_tables.py` and commit it"
    )


def test_lstm_input_save_needs_batch_first_known_to_be_false() -> None:
    """nn.LSTM saves its input only when it is time-major: a literal `batch_first=False` (or the
    default) promises the save; a value the code does not spell out, or `*args` / `**kwargs`
    that may carry it, promises nothing."""
    from inplace_lint.analysis import knowledge as kb

    def saves_input(keywords: dict) -> bool:
        facts = kb.module_class("torch.nn.LSTM", keywords)
        return "input" in facts.call.saves

    assert saves_input({"0": 4, "1": 4})
    assert saves_input({"0": kb.UNKNOWN_LITERAL, "1": 4, "batch_first": False})
    assert not saves_input({"0": 4, "1": 4, "batch_first": True})
    assert not saves_input({"0": 4, "1": 4, "batch_first": kb.UNKNOWN_LITERAL})
    assert not saves_input({"4": kb.UNKNOWN_LITERAL})  # batch_first passed by position
    assert not saves_input({kb.SPREAD_KEYWORDS: kb.UNKNOWN_LITERAL})
    assert not saves_input({"0": 4, kb.SPREAD_POSITIONAL: 1})
    # a keyword given explicitly is not what the spread carries
    assert saves_input({kb.SPREAD_KEYWORDS: kb.UNKNOWN_LITERAL, "batch_first": False})
    assert saves_input({"0": 4, kb.SPREAD_POSITIONAL: 1, "batch_first": False})
