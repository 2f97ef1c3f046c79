"""A ResNet-style block with two in-place writes that break backward.

Run `inplace-lint check examples/` to see both; `python examples/buggy_resnet.py` to see the
RuntimeError that PyTorch raises at `backward()` (it names neither line).
"""

import torch
from torch import nn


class GatedBlock(nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.gate = nn.Sequential(nn.Conv2d(channels, channels, 1), nn.Sigmoid())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x
        out = torch.relu(self.bn1(self.conv1(x)))
        out = self.conv2(out)
        g = self.gate(out)
        g += 0.1  # sigmoid saved its output `g` for backward
        out = out * g
        identity += out  # conv1 saved its input `x` (the same tensor as `identity`)
        return identity


def main() -> None:
    torch.manual_seed(0)
    block = GatedBlock(4)
    x = torch.randn(2, 4, 8, 8, requires_grad=True)
    y = block(x * 1.0)
    y.sum().backward()


if __name__ == "__main__":
    main()
