"""Time from `textDocument/didOpen` of a 2,000-line torch file to its first publishDiagnostics.

Starts the real server (`python -m inplace_lint.server`) over stdio with a minimal JSON-RPC
client, initialises it, waits for its warm-up, then opens a generated file of realistic model
code (modules with conv/bn/relu, residual adds, training loops; some in-place bugs among them)
and measures until the diagnostics arrive. Run:

    python bench/lsp_latency.py [--lines 2000] [--runs 5]

Prints each run and the median; the target is under 1 s on a 2-core machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BLOCK = """
class Block{n}(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x):
        identity = x
        out = self.conv1(x)
        out = self.bn1(out)
        out = self.relu(out)
        out = self.conv2(out)
        out = self.bn2(out)
        out += identity
        return self.relu(out)


def gate{n}(x):
    h = torch.sigmoid(x)
    return h * x


def train{n}(model, loader, optimizer):
    for inputs, targets in loader:
        optimizer.zero_grad()
        logits = model(inputs)
        loss = F.cross_entropy(logits, targets)
        loss.backward()
        optimizer.step()
    with torch.no_grad():
        for p in model.parameters():
            p.clamp_(-1, 1)
    return loss.item()
"""

# One block in BUG_EVERY gets the classic mistakes: a saved activation changed in place, and an
# in-place write to a leaf that requires grad.
BUG_EVERY = 8
BUGS = """

def buggy{n}(x):
    h = torch.sigmoid(x)
    h += 1
    w = torch.zeros(3, requires_grad=True)
    w.add_(1)
    return (h * w).sum()
"""

HEADER = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"


def generate(lines: int) -> str:
    parts = [HEADER]
    n = 0
    while sum(p.count("\n") for p in parts) < lines:
        parts.append(BLOCK.format(n=n))
        if n % BUG_EVERY == 0:
            parts.append(BUGS.format(n=n))
        n += 1
    return "".join(parts)


class Client:
    def __init__(self, command: list[str], env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        self.next_id = 0

    def send(self, method: str, params: object, request: bool = False) -> int | None:
        message: dict = {"jsonrpc": "2.0", "method": method, "params": params}
        if request:
            self.next_id += 1
            message["id"] = self.next_id
        body = json.dumps(message).encode()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()
        return message.get("id")

    def receive(self) -> dict:
        length = 0
        while (line := self.process.stdout.readline().strip()) != b"":
            name, _, value = line.partition(b":")
            if name.lower() == b"content-length":
                length = int(value)
        return json.loads(self.process.stdout.read(length))

    def wait_for(self, predicate) -> dict:
        while True:
            message = self.receive()
            if message.get("method") == "workspace/configuration" or (
                message.get("method") == "client/registerCapability"
            ):
                self.answer(message["id"], None)
                continue
            if predicate(message):
                return message

    def answer(self, request_id: int, result: object) -> None:
        body = json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result}).encode()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def close(self) -> None:
        request = self.send("shutdown", None, request=True)
        self.wait_for(lambda m: m.get("id") == request)
        self.send("exit", None)
        self.process.wait(timeout=10)


def measure(text: str, folder: Path, runs: int) -> list[float]:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    client = Client([sys.executable, "-m", "inplace_lint.server"], env)
    root = folder.as_uri()
    request = client.send(
        "initialize",
        {"processId": os.getpid(), "rootUri": root, "capabilities": {}},
        request=True,
    )
    client.wait_for(lambda m: m.get("id") == request)
    client.send("initialized", {})
    # The server warms up after `initialized`; a round trip behind it shows it is ready.
    warm = client.send(
        "textDocument/codeAction",
        {
            "textDocument": {"uri": f"{root}/none.py"},
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
            "context": {"diagnostics": []},
        },
        request=True,
    )
    client.wait_for(lambda m: m.get("id") == warm)
    time.sleep(2.0)  # let the worker process finish starting
    timings = []
    for run in range(runs):
        uri = f"{root}/model_{run}.py"
        started = time.perf_counter()
        client.send(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}},
        )
        message = client.wait_for(
            lambda m, uri=uri: (
                m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri
            )
        )
        timings.append(time.perf_counter() - started)
        count = len(message["params"]["diagnostics"])
        print(f"run {run + 1}: {timings[-1] * 1000:.0f} ms, {count} diagnostics")
        client.send("textDocument/didClose", {"textDocument": {"uri": uri}})
    client.close()
    return timings


def lint_in_process(text: str, runs: int) -> float:
    """The library alone on the same text (median seconds): what the server adds is the rest."""
    from inplace_lint.api import lint_source

    lint_source("import torch\n")
    timings = []
    for _ in range(runs):
        started = time.perf_counter()
        lint_source(text, "model.py")
        timings.append(time.perf_counter() - started)
    return statistics.median(timings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    text = generate(args.lines)
    print(f"file: {text.count(chr(10))} lines, {len(text)} characters")
    with tempfile.TemporaryDirectory() as folder:
        timings = measure(text, Path(folder), args.runs)
    median = statistics.median(timings)
    print(
        f"first publishDiagnostics after didOpen: median {median * 1000:.0f} ms,"
        f" max {max(timings) * 1000:.0f} ms (target < 1000 ms)"
    )
    library = lint_in_process(text, args.runs)
    print(f"lint_source alone, in process: median {library * 1000:.0f} ms")


if __name__ == "__main__":
    main()
