"""Every hand-kept entry of inplace_lint/knowledge/paddle_surface.toml, proven by running paddle.

(paddle_api.json needs no such test: it is measured by running; tests/test_paddle_knowledge.py
regenerates it byte for byte.)
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

paddle = pytest.importorskip("paddle")

KNOWLEDGE = Path(__file__).resolve().parents[2] / "inplace_lint" / "knowledge"
SURFACE = tomllib.loads((KNOWLEDGE / "paddle_surface.toml").read_text())
API = json.loads((KNOWLEDGE / "paddle_api.json").read_text())


def resolve(qualname: str) -> Any:
    """The object a dotted name stands for (``paddle.nn.Layer.create_parameter`` included)."""
    parts = qualname.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise LookupError(qualname)


@pytest.mark.parametrize("alias", sorted(SURFACE["prefix_aliases"]))
def test_prefix_alias_re_exports_the_same_objects(alias: str) -> None:
    target = SURFACE["prefix_aliases"][alias]
    module = importlib.import_module(alias.rstrip("."))
    known = [
        qualname
        for group in ("functions", "layers")
        for qualname in API[group]
        if qualname.startswith(target) and "." not in qualname[len(target) :]
    ]
    shared = [q for q in known if hasattr(module, q[len(target) :])]
    assert shared, f"{alias} re-exports nothing the table knows"
    for qualname in shared:
        assert getattr(module, qualname[len(target) :]) is resolve(qualname), qualname


def _call_factory(qualname: str, **keywords: Any) -> Any:
    """Call a factory with the smallest valid arguments."""
    fn = resolve(qualname)
    name = qualname.rsplit(".", 1)[1]
    if qualname == "paddle.nn.Layer.create_parameter":
        return paddle.nn.Layer().create_parameter([2], **keywords)
    if name == "to_tensor":
        return fn([1.0, 2.0], **keywords)
    if name.endswith("_like"):
        args: tuple[Any, ...] = (paddle.ones([2]),)
        return fn(*args, 1.0, **keywords) if name == "full_like" else fn(*args, **keywords)
    if name == "full":
        return fn([2], 1.0, **keywords)
    if name == "arange":
        return fn(0.0, 2.0, **keywords)
    if name == "normal":
        return fn(shape=[2], **keywords)
    if name == "randint":
        return fn(0, 5, [2], **keywords)
    if name == "create_parameter":
        return fn([2], "float32", **keywords)
    return fn([2], **keywords)


@pytest.mark.parametrize("qualname", sorted(SURFACE["factories"]))
def test_factory_default_and_switch(qualname: str) -> None:
    entry = SURFACE["factories"][qualname]
    result = _call_factory(qualname)
    assert result.stop_gradient is (not entry["trainable"]), "default"
    assert result.is_leaf
    for keyword, value in entry.get("trainable_when", {}).items():
        switched = _call_factory(qualname, **{keyword: value})
        assert switched.stop_gradient is False and switched.is_leaf, keyword


def test_create_parameter_frozen_by_param_attr() -> None:
    frozen = paddle.create_parameter([2], "float32", attr=paddle.ParamAttr(trainable=False))
    assert frozen.stop_gradient is True


def test_trainable_switches() -> None:
    switches = SURFACE["trainable_switches"]
    for attribute, value in switches["attributes"].items():
        t = paddle.ones([2])
        setattr(t, attribute, value)
        assert t.stop_gradient is False, attribute
        with pytest.raises(ValueError, match=r"\(InvalidArgument\) Leaf"):
            t.scale_(2.0)
    for method in switches["methods"]:
        t = paddle.ones([2])
        getattr(t, method)()
        assert t.stop_gradient is False, method


def test_table_version_is_the_installed_one() -> None:
    assert API["paddle_version"] == paddle.__version__
