"""Measure which ops autocast runs in lower precision, saving a cast copy of an fp32 input.

    python scripts/measure_autocast_ops.py          # needs torch; the linter itself never imports it

For each op: its fp32 inputs (non-leaf, requiring grad) go through the op inside
`torch.autocast("cpu", dtype=torch.bfloat16)`; then the first input is written in place and
backward runs. An op that autocast casts returns bfloat16 and saved the cast copy, so the write
raises nothing. The script checks that the ops `inplace_lint.analysis.knowledge.AUTOCAST_LOWER_PRECISION`
names (by the node they record) are exactly those, and exits 1 otherwise.
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from inplace_lint.analysis.knowledge import AUTOCAST_LOWER_PRECISION

# (the recorded node's name, the call, the input shapes)
CASES = [
    ("addmm", lambda x, w: F.linear(x, w), [(3, 4), (5, 4)]),
    ("addmm", lambda c, a, b: torch.addmm(c, a, b), [(3, 5), (3, 4), (4, 5)]),
    ("mm", torch.mm, [(3, 4), (4, 5)]),
    ("mm", torch.matmul, [(2, 3, 4), (4, 5)]),
    ("bmm", torch.bmm, [(2, 3, 4), (2, 4, 5)]),
    ("baddbmm", lambda c, a, b: torch.baddbmm(c, a, b), [(2, 3, 5), (2, 3, 4), (2, 4, 5)]),
    ("addbmm", lambda c, a, b: torch.addbmm(c, a, b), [(3, 5), (2, 3, 4), (2, 4, 5)]),
    ("convolution", lambda x, w: F.conv1d(x, w), [(1, 2, 8), (3, 2, 3)]),
    ("convolution", lambda x, w: F.conv2d(x, w), [(1, 2, 8, 8), (3, 2, 3, 3)]),
    ("convolution", lambda x, w: F.conv_transpose2d(x, w), [(1, 2, 8, 8), (2, 3, 3, 3)]),
    ("_prelu_kernel", lambda x, w: F.prelu(x, w), [(3, 4), (1,)]),
    # stay fp32 on CPU (CUDA casts some of them): left out of the table
    ("mv", torch.mv, [(3, 4), (4,)]),
    ("_trilinear", lambda a, b, w: F.bilinear(a, b, w), [(3, 4), (3, 5), (2, 4, 5)]),
]


def casts(call, shapes) -> bool:
    inputs = [torch.randn(*shape).requires_grad_(True) * 1.0 for shape in shapes]
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = call(*inputs)
    inputs[0].mul_(2.0)
    try:
        out.float().sum().backward()
    except RuntimeError:
        return False
    return out.dtype == torch.bfloat16


def main() -> int:
    measured: dict[str, bool] = {}
    for name, call, shapes in CASES:
        result = casts(call, shapes)
        measured[name] = measured.get(name, True) and result
        print(f"{name:14s} {'cast copy saved' if result else 'saves the fp32 tensor'}")
    lower = {name for name, cast in measured.items() if cast}
    expected = {name for name in measured if name in AUTOCAST_LOWER_PRECISION}
    if lower != expected:
        print(f"table and measurement disagree: measured {sorted(lower)}, table {sorted(expected)}")
        return 1
    print("AUTOCAST_LOWER_PRECISION agrees with the measurement")
    return 0


if __name__ == "__main__":
    sys.exit(main())
