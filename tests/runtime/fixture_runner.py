"""Execute fixtures under the real framework and judge their declared outcome.

    python tests/runtime/fixture_runner.py FILE [FILE...]   # one JSON verdict per line
    python tests/runtime/fixture_runner.py --serve          # read paths on stdin, answer verdicts

A fixture runs as a script would (`__name__ == "__main__"`, `sys.argv == [FILE]`) in a fresh
namespace. `--serve` keeps one interpreter for many fixtures so torch/paddle are imported once; the
worker resets the global state a fixture may leave behind (grad mode, anomaly mode, default dtype,
nn.Module patching, ...) and, if it still finds the state changed, answers `"dirty": true` and
exits so that its parent starts a fresh one. Rules: docs/fixtures.md, "runtime check".
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import runpy
import sys
import time
import traceback
import warnings
import weakref
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from fixturelib import Fixture, load_fixture

VERSION_IN_MESSAGE = re.compile(r"is at version (\d+); expected version (\d+)")
SAVED_TYPE_IN_MESSAGE = re.compile(r"inplace operation: \[(torch\.\w+) \[")
OUTPUT_TAIL = 2000


# -- framework state ------------------------------------------------------------------------------


def _state(framework: str) -> dict:
    """The global switches a fixture may flip; compared before and after each fixture."""
    if framework == "torch":
        import torch

        return {
            "grad": torch.is_grad_enabled(),
            "inference": torch.is_inference_mode_enabled(),
            "anomaly": torch.is_anomaly_enabled(),
            "dtype": str(torch.get_default_dtype()),
            "deterministic": torch.are_deterministic_algorithms_enabled(),
            "function_modes": torch._C._len_torch_function_stack(),
            "module_init": id(torch.nn.Module.__init__),
        }
    import paddle

    return {
        "grad": paddle.is_grad_enabled(),
        "dynamic": paddle.in_dynamic_mode(),
        "dtype": str(paddle.get_default_dtype()),
        "device": paddle.get_device(),
    }


def _reset(framework: str) -> None:
    """Undo the usual global changes, so one careless fixture does not cost a restart."""
    if framework == "torch":
        import torch

        torch.set_grad_enabled(True)
        torch.autograd.set_detect_anomaly(False)
        torch.set_default_dtype(torch.float32)
        torch.use_deterministic_algorithms(False)
    else:
        import paddle

        paddle.set_grad_enabled(True)
        paddle.set_default_dtype("float32")


def _setup(framework: str) -> None:
    if framework == "torch":
        import torch

        torch.set_num_threads(1)
    else:
        import paddle  # noqa: F401


def _seed(framework: str) -> None:
    if framework == "torch":
        import torch

        torch.manual_seed(0)
    else:
        import paddle

        paddle.seed(0)


# -- in-place recording (torch, for `error version-counter`) ---------------------------------------


def _fixture_frame(filename: str, frame):
    while frame is not None and frame.f_code.co_filename != filename:
        frame = frame.f_back
    return frame


def _tensor_args(args: tuple, kwargs: dict) -> list:
    """Tensor arguments of a call, one level into lists and tuples (`_foreach_*_`, `out=(a, b)`)."""
    import torch

    found = []
    for value in (*args, *kwargs.values()):
        for item in value if isinstance(value, (list, tuple)) else (value,):
            if isinstance(item, torch.Tensor):
                found.append(item)
    return found


class InplaceRecorder:
    """Record every torch call that wrote a tensor argument in place: the fixture line(s) it comes
    from and the written tensors' versions before and after the call.

    A call counts as a write when the `_version` of one of its tensor arguments changed across it.
    Matching names (`add_`, `__iadd__`, `__setitem__`, `inplace=True`, `out=`) would miss writes
    nested in a function that the mode sees only from outside (`F.embedding(..., max_norm=...)`
    renormalising its weight, `F.batch_norm` updating running statistics) and would count calls
    that write nothing (`requires_grad_`).

    The line is the innermost stack frame in the fixture file. A call made inside a library
    module's forward (`nn.ReLU(inplace=True)`) is also attributed to the fixture line that
    constructed that module, so the fault marker may sit on the constructor. Invisible, hence never
    recorded: writes to a tensor that is not an argument of the outermost torch call, and `.data`
    writes (a `.data` tensor has its own version counter, so such writes never raise anyway).
    """

    def __init__(self, filename: str) -> None:
        self.filename = filename
        self.ops: list[dict] = []
        self.module_lines: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    @contextlib.contextmanager
    def active(self):
        import torch
        from torch.overrides import TorchFunctionMode

        recorder = self

        class Mode(TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                kwargs = kwargs or {}
                tensors = _tensor_args(args, kwargs)
                before = [t._version for t in tensors]
                result = func(*args, **kwargs)
                written = [(t, v) for t, v in zip(tensors, before) if t._version != v]
                if written:
                    recorder._record(getattr(func, "__name__", repr(func)), written)
                return result

        original_init = torch.nn.Module.__init__

        def init(module, *args, **kwargs):
            original_init(module, *args, **kwargs)
            frame = _fixture_frame(self.filename, sys._getframe(1))
            if frame is not None:
                self.module_lines.setdefault(module, frame.f_lineno)

        torch.nn.Module.__init__ = init
        try:
            with Mode():
                yield self
        finally:
            torch.nn.Module.__init__ = original_init

    def _record(self, name: str, written: list) -> None:
        import torch

        lines = set()
        frame = sys._getframe(2)
        while frame is not None and frame.f_code.co_filename != self.filename:
            owner = frame.f_locals.get("self")
            if isinstance(owner, torch.nn.Module):
                if frame.f_code.co_name == "__init__":
                    return  # a library module initialising its own parameters
                if owner in self.module_lines:
                    lines.add(self.module_lines[owner])
            frame = frame.f_back
        if frame is None:
            return
        lines.add(frame.f_lineno)
        writes = [
            {"before": v, "after": t._version, "type": t.type(), "shape": list(t.shape)}
            for t, v in written
        ]
        self.ops.append({"lines": sorted(lines), "op": name, "writes": writes})


# -- running and judging --------------------------------------------------------------------------


def _to_arrays(value) -> list:
    import numpy as np

    items = value if isinstance(value, (list, tuple)) else [value]
    arrays = []
    for item in items:
        if item is None:
            arrays.append(None)
        elif hasattr(item, "detach"):
            arrays.append(item.detach().cpu().numpy())
        elif hasattr(item, "numpy"):
            arrays.append(item.numpy())
        else:
            arrays.append(np.asarray(item))
    return arrays


def _same(a, b) -> bool:
    import numpy as np

    if a is None or b is None:
        return a is None and b is None
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=1e-4, atol=1e-6, equal_nan=True))


def _exception_info(exc: BaseException, filename: str) -> dict:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == filename]
    return {
        "type": type(exc).__name__,
        "mro": [c.__name__ for c in type(exc).__mro__],
        "message": str(exc),
        "line": frames[-1].lineno if frames else None,
        "traceback": "".join(traceback.format_exception(exc))[-OUTPUT_TAIL:],
    }


def _judge_error(fx: Fixture, exc: dict | None, ops: list[dict]) -> list[str]:
    family = fx.family
    if exc is None:
        return [f"expected {family.exception} ({fx.outcome}), but main() returned"]
    problems = []
    if family.exception not in exc["mro"] or not re.search(family.message, exc["message"]):
        expected = f"{family.exception} matching /{family.message}/ ({fx.outcome})"
        return [f"expected {expected}, got {exc['type']}: {exc['message'][:300]}"]
    if family.check == "fault-frame" and exc["line"] != fx.fault_line:
        problems.append(f"raised from line {exc['line']}, but `# fault` is line {fx.fault_line}")
    if family.check == "version":
        match = VERSION_IN_MESSAGE.search(exc["message"])
        if match is None:
            return [f"no `is at version N` in: {exc['message'][:300]}"]
        now, saved = int(match.group(1)), int(match.group(2))
        kind = SAVED_TYPE_IN_MESSAGE.search(exc["message"])

        def broke(op: dict) -> bool:
            """The op took a tensor of the saved type past the version it was saved at."""
            return any(
                w["before"] <= saved < w["after"] <= now
                and (kind is None or w["type"] == kind.group(1))
                for w in op["writes"]
            )

        if not any(broke(op) for op in ops if fx.fault_line in op["lines"]):
            at_fault = [
                (op["op"], [(w["type"], w["before"], w["after"]) for w in op["writes"]])
                for op in ops
                if fx.fault_line in op["lines"]
            ]
            culprits = sorted({ln for op in ops if broke(op) for ln in op["lines"]})
            problems.append(
                f"message says `{kind.group(1) if kind else 'tensor'} ... is at version {now}; "
                f"expected version {saved}`, but no in-place op recorded on the `# fault` line "
                f"{fx.fault_line} moved such a tensor past version {saved} (ops there, with "
                f"versions before/after: {at_fault or 'none'}); lines that did: "
                f"{culprits or 'none'}"
            )
    return problems


def _judge_wrong_grad(fx: Fixture, namespace: dict) -> list[str]:
    results = {}
    for name in ("buggy", "reference", "reference"):
        _seed(fx.framework)
        results.setdefault(name, []).append(_to_arrays(namespace[name]()))
    buggy, (reference, again) = results["buggy"][0], results["reference"]
    if len(buggy) != len(reference):
        return [f"buggy() returns {len(buggy)} values, reference() {len(reference)}"]
    if not all(_same(a, b) for a, b in zip(reference, again)):
        return ["reference() gives different results on two seeded calls: seed inside it"]
    if all(_same(a, b) for a, b in zip(buggy, reference)):
        return ["buggy() and reference() agree (allclose): the bug does not show"]
    return []


def run_fixture(path: Path | str) -> dict:
    """Execute one fixture in this process and return its verdict (a JSON-able dict)."""
    start = time.perf_counter()
    verdict: dict = {"path": str(path), "passed": False, "problems": []}
    try:
        fx = load_fixture(path)
    except Exception as err:  # noqa: BLE001 - a malformed fixture fails its verdict, no crash
        verdict["problems"] = [f"cannot load: {err}"]
        return verdict
    verdict["outcome"] = str(fx.outcome)
    filename = str(fx.path.resolve())
    recorder = InplaceRecorder(filename)
    recording = fx.outcome.family == "version-counter"
    output = io.StringIO()
    exc, namespace = None, {}
    _seed(fx.framework)
    saved_argv = sys.argv
    sys.argv = [filename]
    try:
        with contextlib.ExitStack() as stack:
            stack.enter_context(warnings.catch_warnings())
            stack.enter_context(contextlib.redirect_stdout(output))
            stack.enter_context(contextlib.redirect_stderr(output))
            if recording:
                stack.enter_context(recorder.active())
            try:
                namespace = runpy.run_path(filename, run_name="__main__")
                if fx.outcome.kind == "wrong_grad":
                    verdict["problems"] = _judge_wrong_grad(fx, namespace)
            except (Exception, SystemExit) as err:  # noqa: BLE001 - judged below
                exc = _exception_info(err, filename)
    finally:
        sys.argv = saved_argv
    if fx.outcome.kind == "error":
        verdict["problems"] = _judge_error(fx, exc, recorder.ops)
    elif exc is not None:
        verdict["problems"] = [f"{fx.outcome} fixture raised {exc['type']}: {exc['message'][:300]}"]
    verdict["passed"] = not verdict["problems"]
    verdict["exception"] = exc
    if recording:
        verdict["fault_line_ops"] = [op for op in recorder.ops if fx.fault_line in op["lines"]]
    verdict["output"] = output.getvalue()[-OUTPUT_TAIL:]
    verdict["seconds"] = round(time.perf_counter() - start, 3)
    return verdict


def _framework_of(path: str) -> str | None:
    try:
        return load_fixture(path).framework
    except Exception:  # noqa: BLE001 - run_fixture reports why it cannot load
        return None


def serve() -> None:
    """Answer one verdict line per path line. Fixture output never reaches the answer stream."""
    answers = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    ready: set[str] = set()
    for line in sys.stdin:
        path = line.strip()
        framework = _framework_of(path)
        if framework is not None and framework not in ready:
            _setup(framework)
            ready.add(framework)
        before = _state(framework) if framework else None
        verdict = run_fixture(path)
        if framework:
            _reset(framework)
            after = _state(framework)
            verdict["dirty"] = after != before
        answers.write(json.dumps(verdict) + "\n")
        if verdict.get("dirty"):
            return


def main(argv: list[str]) -> int:
    if argv == ["--serve"]:
        serve()
        return 0
    if not argv or argv[0].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    passed = True
    for path in argv:
        framework = _framework_of(path)
        if framework:
            _setup(framework)
        verdict = run_fixture(path)
        print(json.dumps(verdict))
        passed &= verdict["passed"]
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
