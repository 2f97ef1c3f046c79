"""Notebooks: code cells as one program, `cell N:row:col` positions in every format, fixes
written back to the right cells with outputs and metadata kept."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import invoke, run

from inplace_lint.notebooks import read_notebook, write_notebook


def notebook(*cells: tuple[str, list[str]]) -> dict:
    out = []
    for kind, source in cells:
        cell = {"cell_type": kind, "metadata": {"tags": ["t"]}, "source": source}
        if kind == "code":
            cell.update(
                execution_count=1,
                outputs=[{"output_type": "stream", "name": "stdout", "text": ["hi\n"]}],
            )
        out.append(cell)
    return {
        "cells": out,
        "metadata": {
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def nbformat_text(data: dict) -> str:
    """What Jupyter writes: one-space indent, non-ASCII kept, a final newline."""
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


NB = notebook(
    ("markdown", ["# A title"]),
    ("code", ["import torch\n", "h = x.sigmoid()"]),
    ("code", ["%matplotlib inline\n", "h += 1\n", "print(h)"]),
    ("code", ["!pip list\n", "w.add_(1)"]),
)


def write(project: Path, data: dict = NB) -> Path:
    path = project / "nb.ipynb"
    path.write_text(nbformat_text(data))
    return path


def test_program_and_round_trip():
    text = nbformat_text(NB)
    parsed = read_notebook(text)
    assert "h += 1" in parsed.program and "pass  # inplace-lint magic 0" in parsed.program
    assert write_notebook(parsed, parsed.program) == text  # byte for byte


def test_shell_magic_continued_over_lines_is_one_magic(project):
    """IPython joins `!cmd \\` with the next line whatever its indent (LoRA, mmaction2 and
    nerf_pl notebooks were false IPL901s); the lines come back as they were."""
    data = notebook(
        (
            "code",
            [
                "import torch\n",
                "if True:\n",
                "    !echo one \\\n",
                "  two \\\n",
                "three\n",
                "    x = 1\n",
            ],
        ),
    )
    text = nbformat_text(data)
    parsed = read_notebook(text)
    compile(parsed.program, "nb", "exec")
    assert write_notebook(parsed, parsed.program) == text
    write(project, data)
    result = run("check", "--output-format", "concise", "nb.ipynb", cwd=project)
    assert b"IPL901" not in result.stdout, result.stdout


def test_concise_positions_are_cell_and_row(project, fake_engine):
    write(project)
    result = invoke("check", "--output-format", "concise", "nb.ipynb")
    assert result.stdout.splitlines()[:2] == [
        "nb.ipynb:cell 3:2:1: IPL001 [*] `h += ...` changes `h` in place",
        "nb.ipynb:cell 4:2:1: IPL002 `w.add_()` writes a leaf",
    ]


def test_json_cell_and_related_location_in_an_earlier_cell(project, fake_engine):
    write(project)
    first = json.loads(invoke("check", "--output-format", "json").stdout)[0]
    assert first["cell"] == 3 and first["location"] == {"row": 2, "column": 1}
    assert first["related"][0]["cell"] == 2 and first["related"][0]["location"] == {
        "row": 2,
        "column": 5,
    }


def test_ci_formats_point_at_the_notebook_line(project, fake_engine):
    path = write(project)
    file_lines = path.read_text().splitlines()
    (github_line, _) = invoke("check", "--output-format", "github").stdout.splitlines()
    line = int(github_line.split("line=")[1].split(",")[0])
    assert file_lines[line - 1].strip() == '"h += 1\\n",'
    assert "nb.ipynb:cell 3:2:1: IPL001" in github_line
    gitlab = json.loads(invoke("check", "--output-format", "gitlab").stdout)[0]
    assert gitlab["location"]["lines"]["begin"] == line
    assert "(cell 3, row 2, column 1)" in gitlab["description"]
    sarif = json.loads(invoke("check", "--output-format", "sarif").stdout)
    from sarif_kit.validate import validation_errors

    assert validation_errors(sarif) == []
    result = sarif["runs"][0]["results"][0]
    assert result["locations"][0]["physicalLocation"]["region"] == {"startLine": line}
    assert result["message"]["text"].startswith("cell 3:2:1: ")


def test_full_frame_shows_cell_rows(project, fake_engine):
    write(project)
    text = invoke("check", "--output-format", "full", "nb.ipynb").stdout
    assert " --> nb.ipynb:cell 3:2:1\n  |\n1 | pass  # inplace-lint magic 0\n2 | h += 1\n" in text
    assert "inplace-lint: cell" not in text


def test_fix_writes_back_into_the_right_cells(project, fake_engine):
    path = write(project)
    result = run("check", "--fix", "--unsafe-fixes", "nb.ipynb", cwd=project)
    assert result.returncode == 0, result.stderr
    data = json.loads(path.read_text())
    assert data["cells"][2]["source"] == ["%matplotlib inline\n", "h = h + 1\n", "print(h)"]
    assert data["cells"][3]["source"] == ["!pip list\n", "w.add(1)"]
    expected = json.loads(nbformat_text(NB))
    expected["cells"][2]["source"] = data["cells"][2]["source"]
    expected["cells"][3]["source"] = data["cells"][3]["source"]
    assert data == expected  # outputs, metadata, other cells untouched
    assert path.read_text() == nbformat_text(expected)


def test_diff_is_per_cell(project, fake_engine):
    write(project)
    result = invoke("check", "--diff", "nb.ipynb")
    assert "--- nb.ipynb:cell 3\n+++ nb.ipynb:cell 3\n" in result.stdout
    assert "-h += 1\n+h = h + 1\n" in result.stdout


def test_not_a_notebook_is_a_diagnostic(project):
    (project / "broken.ipynb").write_text("{not json")
    result = run("check", "--output-format", "concise", "broken.ipynb", cwd=project)
    assert result.returncode == 1
    assert b"broken.ipynb:1:1: IPL902 not valid notebook JSON" in result.stdout


def test_syntax_error_in_a_cell(project):
    write(project, notebook(("code", ["x = 1"]), ("code", ["y = (\n"])))
    result = run("check", "--output-format", "concise", "nb.ipynb", cwd=project)
    assert result.returncode == 1
    assert result.stdout.startswith(b"nb.ipynb:cell 2:")


def test_add_noqa_in_a_notebook(project, fake_engine):
    path = write(project)
    invoke("check", "--add-noqa", "nb.ipynb")
    data = json.loads(path.read_text())
    assert data["cells"][2]["source"][1] == "h += 1  # noqa: IPL001\n"
    assert data["cells"][2]["source"][0] == "%matplotlib inline\n"
    assert json.loads(invoke("check", "--output-format", "json", "nb.ipynb").stdout) == []


def test_warm_cache_keeps_cell_positions(project, fake_engine, tmp_path):
    from click.testing import CliRunner

    from inplace_lint.cli import main

    write(project)
    args = ["check", "--cache-dir", str(tmp_path / "cache"), "--output-format", "github"]
    cold = CliRunner().invoke(main, args).stdout
    warm = CliRunner().invoke(main, args).stdout
    assert warm == cold and "cell 3:2:1" in warm


BUGGY_CELL = [
    "import torch\n",
    "x = torch.randn(3, requires_grad=True)\n",
    "h = x.sigmoid()\n",
    "h += 1\n",
    "h.sum().backward()\n",
]


def with_image_output(data: dict, image_bytes: int) -> dict:
    """A plot embedded in the first code cell's outputs, as Jupyter stores one (base64 PNG)."""
    cell = next(c for c in data["cells"] if c["cell_type"] == "code")
    cell["outputs"] = [
        {
            "output_type": "display_data",
            "data": {"image/png": "iVBOR" + "A" * image_bytes, "text/plain": ["<Figure>"]},
            "metadata": {},
        }
    ]
    return data


def test_embedded_images_do_not_count_against_the_byte_budget(project):
    """The budget is for code: a 2 MB notebook whose code is five lines is analysed (it was
    skipped as IPL904 when the budget counted the JSON's embedded plots)."""
    path = write(project, with_image_output(notebook(("code", BUGGY_CELL)), 2_000_000))
    assert path.stat().st_size > 2_000_000
    result = run("check", "--output-format", "concise", "nb.ipynb", cwd=project, fake=False)
    assert result.returncode == 1, result.stderr
    assert b"nb.ipynb:cell 1:4:1: IPL001" in result.stdout, result.stdout
    assert b"IPL904" not in result.stdout


def test_notebook_code_over_the_byte_budget_is_reported(project):
    (project / "pyproject.toml").write_text(
        '[project]\nname = "demo"\n[tool.inplace-lint]\nmax-file-bytes = 100\n'
    )
    write(project, with_image_output(notebook(("code", BUGGY_CELL)), 1_000))
    result = run("check", "--output-format", "concise", "nb.ipynb", cwd=project, fake=False)
    assert result.returncode == 1, result.stderr
    assert b"nb.ipynb:cell 1:1:1: IPL904 The file has 120 bytes" in result.stdout, result.stdout
    assert b"over the 100-byte budget" in result.stdout


INDENTED = notebook(
    (
        "code",
        [
            " import torch\n",
            " x = torch.randn(3, requires_grad=True)\n",
            " h = x.sigmoid()\n",
            " h += 1\n",
            " h.sum().backward()\n",
        ],
    ),
)


def test_cell_indented_as_a_whole_is_analysed_where_it_stands(project):
    """IPython removes a cell's leading indent before running it (PaddleHelix's tutorial notebook
    indents a whole cell by one space): that is no syntax error, and positions and fixes stay in
    the cell's own columns."""
    text = nbformat_text(INDENTED)
    parsed = read_notebook(text)
    assert parsed.program.startswith("if True:  # %% inplace-lint: cell 1\n import torch\n")
    assert write_notebook(parsed, parsed.program) == text
    path = write(project, INDENTED)
    result = run("check", "--output-format", "concise", "nb.ipynb", cwd=project, fake=False)
    assert result.stdout.startswith(b"nb.ipynb:cell 1:4:2: IPL001"), result.stdout
    run("check", "--fix", "--unsafe-fixes", "nb.ipynb", cwd=project, fake=False)
    assert json.loads(path.read_text())["cells"][0]["source"][3] == " h = h + 1\n"


def test_indented_comment_over_unindented_code_is_not_a_block():
    data = notebook(("code", ["  # setup\n", "import torch\n", "x = torch.ones(2)\n"]))
    parsed = read_notebook(nbformat_text(data))
    assert parsed.program.startswith("# %% inplace-lint: cell 1\n")
    compile(parsed.program, "nb", "exec")


def test_magics_only_where_a_logical_line_starts_and_automagic_lines():
    """IPython reads `%`/`!` as a magic only at the start of a logical line (PaddleQuantum's
    `print("...%.4f Ha"` continued by `      % loss.numpy())` is a modulo), and runs a line such
    as `pip install -r requirements.txt` as `%pip` (automagic) when it is no Python."""
    data = notebook(
        (
            "code",
            [
                "import torch\n",
                'print("loss %.4f"\n',
                "      % torch.ones(1).item())\n",
                'doc = """\n',
                "%not a magic inside a string\n",
                '"""\n',
                "x = (1\n",
                "     != 2)\n",
            ],
        ),
        ("code", ["pip install -r requirements.txt\n", "time = 3\n", "cd ..\n"]),
    )
    text = nbformat_text(data)
    parsed = read_notebook(text)
    assert parsed.magics == ["pip install -r requirements.txt", "cd .."]
    compile(parsed.program, "nb", "exec")
    assert write_notebook(parsed, parsed.program) == text


def test_language_comes_from_the_kernel_when_language_info_says_plaintext(project):
    # Meta's Bento (torchrec's tutorials, session 17 survey) writes `language_info.name:
    # "plaintext"` beside a Python kernel: a Python notebook, not IPL902
    source = ["import torch\n", "w = torch.nn.Parameter(torch.ones(3))\n", "w.add_(1)\n"]
    data = notebook(("code", source))
    data["metadata"]["language_info"] = {"name": "plaintext"}
    write(project, data)
    result = run("check", "--output-format", "concise", "nb.ipynb", cwd=project)
    assert result.returncode == 1
    assert b"nb.ipynb:cell 1:3:1: IPL002" in result.stdout
    # a notebook of another language is still not analysed
    data["metadata"]["language_info"] = {"name": "R"}
    data["metadata"]["kernelspec"]["language"] = "R"
    write(project, data)
    result = run("check", "--output-format", "concise", "nb.ipynb", cwd=project)
    assert b"IPL902 not a Python notebook (language 'r')" in result.stdout
