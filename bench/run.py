"""Benchmark inplace-lint on a source tree, against the libcst parse floor and other linters.

    python bench/run.py TREE [--jobs N] [--changed FILE] [--verify] [--repeat N]
                             [--compare-torchfix] [--compare-fixit] [--compare-ruff]

Prints, in one run: files, lines, bytes; the single-core libcst parse-only CPU time of the same
files (the floor); a cold run (empty cache) with its wall and CPU time, the ratio of its wall
time to the floor, and the peak RSS of the largest process of the run (every worker is at most
that); a warm run (nothing changed); a run after one file changed; and, once, the first cold run after
installing, before ``inplace_lint/codegen_cache.py`` has compiled libcst's dataclass methods (the
cold runs measured after it read them, as every later run of an installed copy does). Every run is the real command,
``python -m inplace_lint check TREE --cache-dir <tmp> -o /dev/null --output-format concise``, in a
fresh process, on a snapshot of the package (others editing the working tree would otherwise
change the code, and the cache's fingerprint, between runs); CPU and memory come from ``wait4``
on it, so its worker processes are included.

``--verify`` lints every file both through the prefilter and in full (``api.lint_source``), with
every rule enabled (the risky tier too), and counts the files whose diagnostics differ (there must
be none). ``--compare-*`` runs TorchFix
0.7.0, Fixit or ruff on the same tree, each from its own virtual environment under /tmp/venvs
(created on first use with pip: ``torchfix==0.7.0``, ``fixit``); ruff is the one next to this
Python, with ``--select ALL``.

Real trees used for the numbers in docs/performance.md (kept under /tmp, never committed):

    pip download --no-deps --no-binary :all: transformers==5.23.0 -d /tmp/trees   # src/transformers
    pip download --no-deps torchvision==0.29.2 -d /tmp/trees                      # unzip the wheel
    pip download --no-deps timm==1.0.31 -d /tmp/trees                             # unzip the wheel
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
VENVS = Path("/tmp/venvs")


@dataclass
class Measure:
    wall: float
    cpu: float  # user + system, the process and every child it waited for
    max_rss: int  # bytes, the largest process of the tree
    returncode: int
    stdout: str = ""


def measure(cmd: list[str], cwd: Path | None = None, env: dict | None = None) -> Measure:
    """Run ``cmd``; wall time, and CPU and peak RSS of its whole process tree (wait4)."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    out = proc.stdout.read() if proc.stdout else ""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    return Measure(
        wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024, proc.returncode, out
    )


def python_files(tree: Path) -> list[Path]:
    return sorted(p for p in tree.rglob("*.py") if p.is_file())


FLOOR = textwrap.dedent(
    """
    import sys, time, json
    import libcst
    paths = [line.rstrip("\\n") for line in open(sys.argv[1], encoding="utf-8")]
    texts = []
    for p in paths:
        with open(p, encoding="utf-8", errors="surrogateescape") as f:
            texts.append(f.read())
    failed = 0
    started = time.process_time()
    for text in texts:
        try:
            libcst.parse_module(text)
        except Exception:
            failed += 1
    print(json.dumps({"cpu": time.process_time() - started, "failed": failed}))
    """
)


def parse_floor(files: list[Path], python: str) -> dict:
    """Single-core CPU time of ``libcst.parse_module`` on every file (reading excluded)."""
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as listing:
        listing.write("\n".join(map(str, files)) + "\n")
    try:
        result = measure([python, "-c", FLOOR, listing.name])
        return json.loads(result.stdout)
    finally:
        os.unlink(listing.name)


VERIFY = textwrap.dedent(
    """
    import json, sys
    from multiprocessing import Pool
    from inplace_lint.api import lint_source
    from inplace_lint.runner import lint_python
    from inplace_lint.rules import all_rules
    from inplace_lint.settings import Settings

    # every rule, the risky tier too: the plan does not depend on the selection
    EVERY_RULE = Settings(enabled=frozenset(all_rules()))

    def check(path):
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            text = f.read()
        fast, kind = lint_python(text, path, EVERY_RULE)
        full = lint_source(text, path, EVERY_RULE)
        return path, kind, fast.diagnostics == full, len(full)

    if __name__ == "__main__":
        paths = [line.rstrip("\\n") for line in open(sys.argv[1], encoding="utf-8")]
        paths.sort(key=lambda p: -len(open(p, "rb").read()))
        kinds, differ, diagnostics = {}, [], 0
        with Pool(int(sys.argv[2])) as pool:
            for path, kind, same, n in pool.imap_unordered(check, paths):
                kinds[kind] = kinds.get(kind, 0) + 1
                diagnostics += n
                if not same:
                    differ.append(path)
        print(json.dumps({"kinds": kinds, "differ": differ, "diagnostics": diagnostics}))
    """
)


def verify(files: list[Path], python: str, jobs: int) -> dict:
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as listing:
        listing.write("\n".join(map(str, files)) + "\n")
    try:
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        return json.loads(measure([python, "-c", VERIFY, listing.name, str(jobs)], env=env).stdout)
    finally:
        os.unlink(listing.name)


def snapshot_package(into: Path) -> dict:
    """A copy of the package to run: a working tree others edit would change the code (and the
    cache's fingerprint) between the cold and the warm run."""
    shutil.copytree(
        REPO / "inplace_lint", into / "inplace_lint", ignore=shutil.ignore_patterns("__pycache__")
    )
    # Byte-compiled, as `pip install` leaves a package (this machine sets PYTHONDONTWRITEBYTECODE,
    # so a source tree would otherwise be compiled again by every run).
    compileall.compile_dir(into / "inplace_lint", quiet=1)
    # The compiled dataclass methods (inplace_lint/codegen_cache.py) are kept here, not in the
    # user's cache folder: the first run fills it, as a user's first run after installing does.
    return {
        **os.environ,
        "PYTHONPATH": str(into),
        "INPLACE_LINT_CODEGEN_CACHE": str(into / "codegen-cache"),
    }


def lint_command(python: str, tree: Path, cache_dir: Path, jobs: int | None) -> list[str]:
    cmd = [python, "-m", "inplace_lint", "check", str(tree), "--cache-dir", str(cache_dir)]
    cmd += ["-o", os.devnull, "--output-format", "concise", "--exit-zero"]
    if jobs:
        cmd += ["--jobs", str(jobs)]
    return cmd


def pick_changed(files: list[Path]) -> Path:
    """A typical file that the linter really analyses: the median-sized one that uses torch."""
    torch_files = [f for f in files if b"torch" in f.read_bytes()]
    torch_files.sort(key=lambda f: f.stat().st_size)
    return torch_files[len(torch_files) // 2] if torch_files else files[len(files) // 2]


def ensure_venv(name: str, requirement: str, executable: str) -> Path | None:
    venv = VENVS / name
    exe = venv / "bin" / executable
    if exe.exists():
        return exe
    print(f"  creating {venv} with {requirement} ...", flush=True)
    try:
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run(
            [str(venv / "bin" / "pip"), "install", "-q", requirement], check=True, timeout=900
        )
    except (subprocess.SubprocessError, OSError) as error:
        print(f"  could not install {requirement}: {error}")
        return None
    return exe if exe.exists() else None


def compare(name: str, cmd: list[str], ours_cpu: float, cwd: Path | None = None) -> None:
    result = measure(cmd, cwd=cwd)
    ratio = result.cpu / ours_cpu if ours_cpu else float("nan")
    print(
        f"{name:<22} wall {result.wall:8.2f} s   CPU {result.cpu:8.2f} s   "
        f"({ratio:.1f}x our cold CPU)   exit {result.returncode}"
    )
    print(f"{'':<22} $ {' '.join(cmd)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", type=Path)
    parser.add_argument("--jobs", type=int, default=None, help="passed to inplace-lint --jobs")
    parser.add_argument("--changed", type=Path, help="the file to change for the one-file run")
    parser.add_argument("--python", default=sys.executable, help="the Python with inplace-lint")
    parser.add_argument("--no-floor", action="store_true", help="skip the libcst parse floor")
    parser.add_argument("--verify", action="store_true", help="prefilter vs full, every file")
    parser.add_argument("--warm-runs", type=int, default=3)
    parser.add_argument(
        "--repeat", type=int, default=1, help="floor and cold runs, alternated; medians reported"
    )
    parser.add_argument("--compare-torchfix", action="store_true")
    parser.add_argument("--compare-fixit", action="store_true")
    parser.add_argument("--compare-ruff", action="store_true")
    args = parser.parse_args()

    tree = args.tree.resolve()
    files = python_files(tree)
    lines = sum(f.read_bytes().count(b"\n") for f in files)
    size = sum(f.stat().st_size for f in files)
    print(f"tree                   {tree}")
    print(f"files                  {len(files):,}   lines {lines:,}   bytes {size:,}")
    print(f"machine                {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")

    snapshot = Path(tempfile.mkdtemp(prefix="inplace-lint-bench-code-"))
    env = snapshot_package(snapshot)
    changed = args.changed.resolve() if args.changed else pick_changed(files)
    original = changed.read_bytes()
    cache_dirs: list[Path] = []
    try:
        # The machine is shared and its speed drifts by 10-20% within minutes: with --repeat,
        # the floor and the cold run alternate and the medians are compared.
        floors, colds = [], []
        # The first run after installing: libcst's dataclass methods compiled from source (the
        # run fills inplace_lint/codegen_cache.py's file, which every later run reads).
        cache_dirs.append(Path(tempfile.mkdtemp(prefix="inplace-lint-bench-cache-")))
        first = measure(lint_command(args.python, tree, cache_dirs[-1], args.jobs), snapshot, env)
        for round_ in range(max(args.repeat, 1)):
            if not args.no_floor:
                floors.append(parse_floor(files, args.python))
                if args.repeat > 1:
                    print(f"  round {round_ + 1}: floor CPU {floors[-1]['cpu']:8.2f} s", end="")
            cache_dirs.append(Path(tempfile.mkdtemp(prefix="inplace-lint-bench-cache-")))
            cmd = lint_command(args.python, tree, cache_dirs[-1], args.jobs)
            colds.append(measure(cmd, cwd=snapshot, env=env))
            if args.repeat > 1:
                print(f"   cold wall {colds[-1].wall:8.2f} s   CPU {colds[-1].cpu:8.2f} s")
        floor = None
        if floors:
            floor = {
                "cpu": statistics.median(f["cpu"] for f in floors),
                "failed": floors[0]["failed"],
            }
            failed = f", {floor['failed']} files failed to parse" if floor["failed"] else ""
            what = f"median of {len(floors)}, " if len(floors) > 1 else ""
            print(
                f"libcst parse floor     CPU {floor['cpu']:8.2f} s ({what}one core, parse only{failed})"
            )
        cold = sorted(colds, key=lambda m: m.wall)[len(colds) // 2]
        ratio = f"   = {cold.wall / floor['cpu']:.2f}x the floor" if floor else ""
        what = f" (median of {len(colds)})" if len(colds) > 1 else ""
        print(
            f"cold (empty cache)     wall {cold.wall:8.2f} s   CPU {cold.cpu:8.2f} s{ratio}{what}"
        )
        print(
            f"cold, first run        wall {first.wall:8.2f} s   CPU {first.cpu:8.2f} s"
            "   (no compiled dataclass methods yet: the first run after installing)"
        )
        print(f"peak RSS               {cold.max_rss / 2**20:8.0f} MB (largest process of the run)")
        warm = [measure(cmd, cwd=snapshot, env=env) for _ in range(max(args.warm_runs, 1))]
        walls = [m.wall for m in warm]
        print(
            f"warm (no change)       wall {statistics.median(walls):8.2f} s median of "
            f"{len(walls)} (min {min(walls):.2f}, max {max(walls):.2f})"
        )
        changed.write_bytes(original + b"\n# inplace-lint bench: changed\n")
        one = measure(cmd, cwd=snapshot, env=env)
        print(
            f"one file changed       wall {one.wall:8.2f} s   CPU {one.cpu:8.2f} s   "
            f"({changed.relative_to(tree)}, {len(original):,} bytes)"
        )
        print(f"$ {' '.join(cmd)}")
        if cold.returncode not in (0,):
            print(f"warning: inplace-lint exited {cold.returncode}")
    finally:
        changed.write_bytes(original)
        for cache_dir in cache_dirs:
            shutil.rmtree(cache_dir, ignore_errors=True)
        shutil.rmtree(snapshot, ignore_errors=True)

    if args.verify:
        result = verify(files, args.python, args.jobs or os.cpu_count() or 1)
        print(
            f"verify                 {len(result['differ'])} files differ between the prefilter "
            f"and the full pipeline; plans {result['kinds']}; {result['diagnostics']} diagnostics"
        )
        for path in result["differ"][:20]:
            print(f"  differs: {path}")

    if args.compare_torchfix:
        exe = ensure_venv("torchfix", "torchfix==0.7.0", "torchfix")
        if exe:
            compare("TorchFix 0.7.0", [str(exe), str(tree)], cold.cpu)
    if args.compare_fixit:
        exe = ensure_venv("fixit", "fixit", "fixit")
        if exe:
            compare("Fixit", [str(exe), "lint", str(tree)], cold.cpu)
    if args.compare_ruff:
        ruff = shutil.which("ruff", path=str(Path(args.python).parent)) or shutil.which("ruff")
        if ruff:
            cmd = [ruff, "check", "--no-cache", "--select", "ALL", "--exit-zero", "-q", str(tree)]
            compare("ruff --select ALL", cmd, cold.cpu)
    return 0


if __name__ == "__main__":
    sys.exit(main())
