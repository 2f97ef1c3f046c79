"""Autograd knowledge: the facts the analysis reads, and the tables they come from.

``facts`` holds the frozen dataclasses; ``torch_facts`` answers queries about PyTorch calls from the
generated ``torch_ops.json`` and the hand-kept ``torch_surface.toml`` (loaded lazily, on first use).
"""

from .facts import ALWAYS, ModuleFacts, OpFacts
from .torch_facts import (
    UNKNOWN,
    binary_operator,
    is_torch_inplace_method,
    tensor_method,
    torch_function,
    torch_module,
)

__all__ = [
    "ALWAYS",
    "UNKNOWN",
    "ModuleFacts",
    "OpFacts",
    "binary_operator",
    "is_torch_inplace_method",
    "tensor_method",
    "torch_function",
    "torch_module",
]
