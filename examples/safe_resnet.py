"""torchvision's BasicBlock: the in-place writes here are all safe, and inplace-lint is silent.

`out += identity` writes the output of BatchNorm, which saves its input, not its output;
`nn.ReLU(inplace=True)` after BatchNorm and after the addition is what torchvision ships.
"""

import torch
from torch import nn


class BasicBlock(nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x
        out = self.conv1(x)
        out = self.bn1(out)
        out = self.relu(out)
        out = self.conv2(out)
        out = self.bn2(out)
        out += identity
        out = self.relu(out)
        return out


def main() -> None:
    torch.manual_seed(0)
    block = BasicBlock(4)
    x = torch.randn(2, 4, 8, 8, requires_grad=True)
    block(x).sum().backward()
    with torch.no_grad():
        for p in block.parameters():
            p -= 0.01 * p.grad  # a manual SGD step under no_grad: safe


if __name__ == "__main__":
    main()
