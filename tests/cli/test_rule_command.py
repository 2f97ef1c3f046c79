"""`inplace-lint rule CODE | --all`."""

from __future__ import annotations

import json

from conftest import invoke

from inplace_lint.rules import all_rules


def test_rule_page_is_the_docstring():
    result = invoke("rule", "IPL900")
    assert result.exit_code == 0
    assert result.stdout.startswith("# unused-noqa (IPL900)\n\nUnused `noqa` directive.\n")
    assert "## What it does" in result.stdout and "## Fix safety" in result.stdout


def test_rule_is_case_insensitive_and_says_default_state():
    text = invoke("rule", "ipl201").stdout
    assert "off by default" in text


def test_rule_json():
    data = json.loads(invoke("rule", "IPL001", "--output-format", "json").stdout)
    assert data["code"] == "IPL001" and data["name"] == all_rules()["IPL001"].name
    assert data["explanation"].startswith("## What it does")


def test_rule_all():
    data = json.loads(invoke("rule", "--all", "--output-format", "json").stdout)
    assert [d["code"] for d in data] == list(all_rules())
    text = invoke("rule", "--all").stdout
    assert text.count("\n# ") + 1 == len(all_rules())


def test_unknown_rule_exits_2():
    result = invoke("rule", "IPL999")
    assert result.exit_code == 2 and "unknown rule" in result.stderr
    assert invoke("rule").exit_code == 2


def test_server_command_is_listed():
    result = invoke("--help")
    assert "server" in result.stdout and "check" in result.stdout and "rule" in result.stdout
