"""The Paddle knowledge API (inplace_lint.knowledge.paddle_facts) answers from the committed tables.

These tests need no paddle. The facts they pin were measured by scripts/gen_paddle_tables.py on
paddle 3.3.1; the last test regenerates the table when paddle is importable and requires the
committed bytes back.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from inplace_lint.knowledge import paddle_facts as pf
from inplace_lint.knowledge.facts import ALWAYS

ROOT = Path(__file__).resolve().parents[1]
API = ROOT / "inplace_lint" / "knowledge" / "paddle_api.json"


def test_module_does_not_import_paddle() -> None:
    code = (
        "import sys; from inplace_lint.knowledge import paddle_facts as pf; "
        "pf.paddle_function('paddle.tanh'); pf.paddle_layer('paddle.nn.Linear', {}); "
        "print('paddle' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert out.stdout.strip() == "False"


def test_header_names_the_version() -> None:
    table = json.loads(API.read_text())
    assert table["paddle_version"] == pf.paddle_version() == "3.3.1"
    assert "gen_paddle_tables.py" in table["_generated_by"]


# -- functions ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "qualname",
    ["paddle.tanh", "paddle.sigmoid", "paddle.exp", "paddle.nn.functional.softmax"],
)
def test_activations_that_save_their_output(qualname: str) -> None:
    facts = pf.paddle_function(qualname)
    assert facts is not None
    assert facts.saves_output
    assert facts.saves == {}
    assert facts.inplace_param is None


def test_inplace_variant_by_flag_and_by_name() -> None:
    by_flag = pf.paddle_function("paddle.tanh", inplace=True)
    by_name = pf.paddle_function("paddle.tanh_")
    assert by_flag == by_name
    assert by_name is not None and by_name.inplace_param == "x" and by_name.saves_output
    relu_ = pf.paddle_function("paddle.nn.functional.relu_")
    assert relu_ is not None and relu_.inplace_param == "x" and relu_.saves_output
    # paddle has no paddle.exp_ (only the method): no in-place variant to report
    assert pf.paddle_function("paddle.exp", inplace=True) is None


@pytest.mark.parametrize("qualname", ["paddle.multiply", "paddle.matmul"])
def test_multiply_and_matmul_save_both_operands_always(qualname: str) -> None:
    facts = pf.paddle_function(qualname)
    assert facts is not None
    assert facts.saves == {"x": ALWAYS, "y": ALWAYS}


def test_divide_saves_operands_and_output() -> None:
    facts = pf.paddle_function("paddle.divide")
    assert facts is not None
    assert facts.saves == {"x": ALWAYS, "y": ALWAYS} and facts.saves_output


@pytest.mark.parametrize("qualname", ["paddle.nn.functional.silu", "paddle.nn.functional.elu"])
def test_silu_and_elu_save_input_and_output(qualname: str) -> None:
    facts = pf.paddle_function(qualname)
    assert facts is not None
    assert facts.saves == {"x": ALWAYS} and facts.saves_output


@pytest.mark.parametrize(
    "qualname", ["paddle.add", "paddle.subtract", "paddle.concat", "paddle.scale"]
)
def test_ops_that_save_nothing(qualname: str) -> None:
    facts = pf.paddle_function(qualname)
    assert facts is not None
    assert facts.saves == {} and not facts.saves_output


def test_linear_and_conv_saves_are_conditional_on_input_or_weight() -> None:
    linear = pf.paddle_function("paddle.nn.functional.linear")
    assert linear is not None
    assert linear.saves == {"x": ("x", "weight"), "weight": ("x", "weight")}
    conv = pf.paddle_function("paddle.nn.functional.conv2d")
    assert conv is not None and conv.saves["x"] == ("x", "weight")


def test_views_share_the_version_counter() -> None:
    for qualname in ("paddle.reshape", "paddle.transpose", "paddle.unsqueeze", "paddle.flatten"):
        facts = pf.paddle_function(qualname)
        assert facts is not None and facts.view_of == "x", qualname
    unbind = pf.paddle_function("paddle.unbind")
    assert unbind is not None and unbind.multi_view_of == "input"
    # split / chunk copy: writing a chunk does not touch the input
    for qualname in ("paddle.split", "paddle.chunk"):
        facts = pf.paddle_function(qualname)
        assert facts is not None and facts.view_of is None and facts.multi_view_of is None


def test_comparisons_are_not_differentiable() -> None:
    facts = pf.paddle_function("paddle.equal")
    assert facts is not None and not facts.differentiable


def test_out_keyword_is_reported() -> None:
    facts = pf.paddle_function("paddle.multiply")
    assert facts is not None and facts.out_param == "out"


def test_alias_modules_resolve() -> None:
    assert pf.paddle_function("paddle.nn.functional.conv.conv2d") == pf.paddle_function(
        "paddle.nn.functional.conv2d"
    )
    assert pf.paddle_layer("paddle.nn.layer.common.Linear", {}) == pf.paddle_layer(
        "paddle.nn.Linear", {}
    )


def test_unknown_names() -> None:
    assert pf.paddle_function("paddle.no_such_op") is None
    assert pf.paddle_method("no_such_method_") is None
    assert pf.paddle_layer("paddle.nn.NoSuchLayer", {}) is None
    assert pf.paddle_binary_operator("<>") is None


# -- methods ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["scale_", "add_", "clip_", "zero_", "fill_", "exp_", "sigmoid_"])
def test_inplace_methods_write_their_receiver(name: str) -> None:
    facts = pf.paddle_method(name)
    assert facts is not None and facts.inplace_param == facts.params[0]
    assert pf.is_paddle_inplace_method(name)
    assert pf.paddle_bumps_version(name)
    assert pf.paddle_leaf_error(name)


def test_out_of_place_method_matches_function() -> None:
    method = pf.paddle_method("tanh")
    assert method is not None and method == pf.paddle_function("paddle.tanh")


def test_setitem_is_in_place_and_bumps() -> None:
    facts = pf.paddle_method("__setitem__")
    assert facts is not None
    assert facts.params == ("x", "item", "value") and facts.inplace_param == "x"
    assert pf.paddle_bumps_version("__setitem__") and pf.paddle_leaf_error("__setitem__")


@pytest.mark.parametrize("name", ["set_value", "copy_"])
def test_set_value_and_copy_write_without_a_version_bump(name: str) -> None:
    facts = pf.paddle_method(name)
    assert facts is not None and facts.inplace_param == "x"
    assert pf.is_paddle_inplace_method(name)
    assert not pf.paddle_bumps_version(name)
    assert not pf.paddle_leaf_error(name)


def test_set_value_returns_none() -> None:
    facts = pf.paddle_method("set_value")
    assert facts is not None and not facts.returns_tensor


def test_metadata_methods_are_not_writes() -> None:
    for name in ("requires_grad_", "detach_"):
        assert not pf.is_paddle_inplace_method(name)
        assert not pf.paddle_bumps_version(name)
    for dunder in ("__iadd__", "__isub__", "__imul__"):
        assert not pf.is_paddle_inplace_method(dunder)


def test_getitem_is_a_view_and_detach_an_alias() -> None:
    getitem = pf.paddle_method("__getitem__")
    assert getitem is not None and getitem.view_of == "x"
    detach = pf.paddle_method("detach")
    assert detach is not None and detach.version_alias_of == "x" and not detach.differentiable


def test_where_inplace_writes_x_not_the_condition() -> None:
    facts = pf.paddle_function("paddle.where_")
    assert facts is not None
    assert facts.params[0] == "condition" and facts.inplace_param == "x"


def test_function_and_method_forms_of_bump_query() -> None:
    assert pf.paddle_bumps_version("paddle.tanh_")
    assert not pf.paddle_bumps_version("paddle.tanh")
    assert not pf.paddle_bumps_version("tanh")


# -- operators -------------------------------------------------------------------------------------


def test_binary_operators() -> None:
    mul = pf.paddle_binary_operator("*")
    assert mul is not None and mul.saves == {"x": ALWAYS, "y": ALWAYS}
    matmul = pf.paddle_binary_operator("@")
    assert matmul is not None and matmul.saves == {"x": ALWAYS, "y": ALWAYS}
    add = pf.paddle_binary_operator("+")
    assert add is not None and add.saves == {} and add.inplace_param is None


def test_augmented_assignment_rebinds() -> None:
    for op in ("+", "-", "*", "/", "@", "**"):
        augmented = pf.paddle_binary_operator(op, augmented=True)
        assert augmented is not None
        assert augmented.inplace_param is None
        assert augmented == pf.paddle_binary_operator(op)
    assert pf.paddle_binary_operator("+=", augmented=True) == pf.paddle_binary_operator("+")


def test_scalar_operands() -> None:
    by_scalar = pf.paddle_binary_operator("*", scalar="right")
    assert by_scalar is not None and by_scalar.saves == {}
    power = pf.paddle_binary_operator("**", scalar="right")
    assert power is not None and power.saves == {"x": ALWAYS}
    rpow = pf.paddle_binary_operator("**", scalar="left")
    assert rpow is not None and rpow.saves == {"y": ALWAYS}


def test_bitwise_operators_are_not_differentiable() -> None:
    facts = pf.paddle_binary_operator("&")
    assert facts is not None and not facts.differentiable


# -- layers ----------------------------------------------------------------------------------------


def test_linear_saves_its_input_and_weight() -> None:
    facts = pf.paddle_layer("paddle.nn.Linear", {})
    assert facts is not None
    assert facts.call.params == ("input",) and facts.call.saves == {"input": ALWAYS}
    assert facts.has_parameters and "weight" in facts.saved_attributes
    assert pf.paddle_layer("paddle.nn.Linear", {"bias_attr": False}) is not None


@pytest.mark.parametrize("name", ["ReLU", "Sigmoid", "Tanh", "Softmax"])
def test_activation_layers_save_their_output(name: str) -> None:
    facts = pf.paddle_layer(f"paddle.nn.{name}", {})
    assert facts is not None and facts.call.saves_output and not facts.has_parameters


def test_conv_batchnorm_layernorm_save_input() -> None:
    for name in ("Conv2D", "BatchNorm2D", "LayerNorm"):
        facts = pf.paddle_layer(f"paddle.nn.{name}", {})
        assert facts is not None and facts.call.saves == {facts.call.params[0]: ALWAYS}, name
        assert not facts.call.saves_output, name
    bn = pf.paddle_layer("paddle.nn.BatchNorm2D", {})
    assert bn is not None and {"_mean", "_variance"} <= set(bn.saved_attributes)
    assert bn.inplace_buffers == ()  # the running stats are updated without a version bump


def test_dropout_variants() -> None:
    plain = pf.paddle_layer("paddle.nn.Dropout", {})
    assert plain is not None and plain.call.saves == {} and plain.call.inplace_param is None
    inplace = pf.paddle_layer("paddle.nn.Dropout", {"inplace": True})
    assert inplace is not None and inplace.call.inplace_param == "input"
    positional = pf.paddle_layer("paddle.nn.Dropout", {0: 0.0})
    assert positional is not None and positional.call.view_of == "input"
    unknown = pf.paddle_layer("paddle.nn.Dropout", {"inplace": object()})
    assert unknown == plain


def test_containers() -> None:
    for name in ("Sequential", "LayerList", "LayerDict"):
        facts = pf.paddle_layer(f"paddle.nn.{name}", {})
        assert facts is not None and facts.container, name


# -- global facts, optimizers, factories ---------------------------------------------------------------


def test_semantics() -> None:
    s = pf.paddle_semantics()
    assert s["tensor_has_inplace_dunders"] == []
    assert s["leaf_inplace_error"] and s["leaf_setitem_error"]
    assert s["no_grad_exempts_leaf"]
    assert not s["no_grad_escapes_version_check"]
    assert not s["leaf_view_inplace_error"] and s["leaf_view_inplace_writes_leaf"]
    assert not s["multi_output_view_inplace_error"]
    assert s["parameter_augassign_in_layer"] == "TypeError"
    assert s["to_tensor_default_stop_gradient"]


def test_optimizer_step_does_not_bump() -> None:
    for name in ("SGD", "Adam", "AdamW", "Momentum"):
        assert pf.paddle_optimizer_step_bumps_version(f"paddle.optimizer.{name}") is False
    assert pf.paddle_optimizer_step_bumps_version("paddle.optimizer.NoSuch") is None


def test_factories() -> None:
    to_tensor = pf.paddle_factory("paddle.to_tensor")
    assert to_tensor is not None
    assert not to_tensor.is_trainable({})
    assert to_tensor.is_trainable({"stop_gradient": False})
    zeros = pf.paddle_factory("paddle.zeros")
    assert zeros is not None and zeros.is_trainable({"requires_grad": True})
    assert not zeros.is_trainable({"requires_grad": False})
    param = pf.paddle_factory("paddle.create_parameter")
    assert param is not None and param.is_trainable({})
    assert pf.paddle_factory("paddle.tanh") is None


# -- the table itself ------------------------------------------------------------------------------


def test_every_inplace_name_has_an_entry() -> None:
    table = json.loads(API.read_text())
    for name in table["inplace_names"]["method"]:
        assert name in table["methods"], name
    for kind in ("paddle", "paddle.nn.functional"):
        for name in table["inplace_names"][kind]:
            assert f"{kind}.{name}" in table["functions"], name


def test_save_conditions_name_parameters() -> None:
    table = json.loads(API.read_text())
    for group in ("functions", "methods", "operators"):
        for qualname, entry in table[group].items():
            for param, condition in entry.get("saves", {}).items():
                assert param in entry["params"], (qualname, param)
                assert set(condition) <= set(entry["params"]), (qualname, condition)


@pytest.mark.skipif(importlib.util.find_spec("paddle") is None, reason="paddle is not installed")
def test_table_regenerates_byte_for_byte() -> None:
    """scripts/gen_paddle_tables.py run on the installed paddle gives the committed bytes."""
    version = importlib.metadata.version("paddlepaddle")
    if version != pf.paddle_version():
        pytest.skip(f"the table was measured on paddle {pf.paddle_version()}, not {version}")
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_paddle_tables.py"), "--check"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr[-2000:]


def test_recurrent_layers_save_their_output_sequence_and_initial_state() -> None:
    # measured: RnnGradNode keeps the output sequence and the initial states, not the input
    # (batch-major) nor the final states
    for name, result in (
        ("paddle.nn.GRU", ("output", "state_1")),
        ("paddle.nn.SimpleRNN", ("output", "state_1")),
        ("paddle.nn.LSTM", ("output", ("state_1", "state_2"))),
    ):
        facts = pf.paddle_layer(name, {})
        assert facts is not None and facts.has_parameters
        assert facts.call.params == ("inputs", "initial_states")
        assert facts.call.saves == {"initial_states": ALWAYS}
        assert facts.call.saves_output
        assert facts.call.result == result


def test_recurrent_cells_save_their_inputs_and_return_one_state_twice() -> None:
    # `y, h = cell(x, h)`: one tensor in both slots; SimpleRNNCell's is its tanh output (saved),
    # GRUCell's and LSTMCell's are saved by nothing
    for name, saves_output, result in (
        ("paddle.nn.SimpleRNNCell", True, ("output", "output")),
        ("paddle.nn.GRUCell", False, ("output", "output")),
        ("paddle.nn.LSTMCell", False, ("output", ("output", "state_2"))),
    ):
        facts = pf.paddle_layer(name, {})
        assert facts is not None
        assert facts.call.saves == {"inputs": ALWAYS, "states": ALWAYS}
        assert facts.call.saves_output is saves_output
        assert facts.call.result == result
