"""The README's promises: its first command lints the examples; its rule table is the registry."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from conftest import INPLACE_LINT

from inplace_lint.rules import all_rules

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text()


def test_first_command_lints_the_examples():
    first = re.search(r"```sh\n(.*?)\n```", README).group(1)
    assert first.endswith(".venv/bin/inplace-lint check examples/")
    done = subprocess.run(
        [str(INPLACE_LINT), "check", "--output-format", "concise", "examples/"],
        cwd=REPO,
        capture_output=True,
        check=False,
        text=True,
    )
    assert done.returncode == 1, done.stderr
    found = {
        (line.split(":")[0], int(line.split(":")[1]), line.split(": ")[1].split()[0])
        for line in done.stdout.splitlines()
        if ": IPL" in line
    }
    # every bug the examples' comments describe, and nothing in the safe look-alike
    assert found == {
        ("examples/buggy_resnet.py", 24, "IPL001"),
        ("examples/buggy_resnet.py", 26, "IPL001"),
        ("examples/gan_training.py", 27, "IPL006"),
        ("examples/paddle_sgd.py", 14, "IPL103"),
        ("examples/paddle_sgd.py", 18, "IPL011"),
    }


def test_rule_table_matches_the_registry():
    rows = re.findall(
        r"^\| \[(IPL\d+)\]\(rules/\1\.md\) \| ([\w-]+) \| \S+ \| (\w+) \| (on|off) \|",
        README,
        re.MULTILINE,
    )
    expected = [
        (code, rule.name, rule.severity.label, "on" if rule.default_enabled else "off")
        for code, rule in all_rules().items()
    ]
    assert rows == expected
    for code, *_ in rows:
        assert (REPO / "rules" / f"{code}.md").is_file()
