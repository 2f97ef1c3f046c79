"""End to end: the workspace's pyproject.toml (reloaded without a restart) and the editor's
select/ignore through initializationOptions and workspace/configuration."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types

from tests.server.lsp_session import session

pytestmark = pytest.mark.asyncio

SOURCE = """\
import torch
x = torch.randn(3, requires_grad=True)
h = torch.sigmoid(x)
h += 1
w = torch.zeros(3, requires_grad=True)
w.add_(1)
h.sum().backward()
"""


def _codes(diagnostics: list[types.Diagnostic]) -> list[str]:
    return sorted(str(d.code) for d in diagnostics)


def _write_config(root, body: str) -> None:
    (root / "pyproject.toml").write_text(f'[project]\nname = "demo"\n\n[tool.inplace-lint]\n{body}')


async def test_pyproject_change_is_picked_up_without_a_restart(tmp_path):
    _write_config(tmp_path, 'ignore = ["IPL001"]\n')
    (tmp_path / "pkg").mkdir()
    uri = (tmp_path / "pkg" / "model.py").as_uri()
    async with session(tmp_path) as s:
        s.open(uri, SOURCE)
        assert _codes(await s.diagnostics_at(uri, 1)) == ["IPL002"]
        seen = s.count(uri)
        _write_config(tmp_path, 'ignore = ["IPL002"]\n')
        s.client.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(
                changes=[
                    types.FileEvent(
                        uri=(tmp_path / "pyproject.toml").as_uri(),
                        type=types.FileChangeType.Changed,
                    )
                ]
            )
        )
        assert _codes(await s.diagnostics(uri, after=seen)) == ["IPL001"]


async def test_pyproject_change_is_seen_on_the_next_lint_even_without_a_watcher(tmp_path):
    _write_config(tmp_path, 'ignore = ["IPL001"]\n')
    uri = (tmp_path / "model.py").as_uri()
    async with session(tmp_path) as s:
        s.open(uri, SOURCE)
        assert _codes(await s.diagnostics_at(uri, 1)) == ["IPL002"]
        await asyncio.sleep(0.05)  # a different mtime
        _write_config(tmp_path, 'select = ["IPL0"]\n')
        s.replace_text(uri, SOURCE + "\n")
        assert _codes(await s.diagnostics_at(uri, 2)) == ["IPL001", "IPL002"]


async def test_a_bad_config_is_shown_and_the_defaults_are_used(tmp_path):
    _write_config(tmp_path, 'selct = ["IPL001"]\n')
    uri = (tmp_path / "model.py").as_uri()
    async with session(tmp_path) as s:
        s.open(uri, SOURCE)
        assert _codes(await s.diagnostics_at(uri, 1)) == ["IPL001", "IPL002"]
        for _ in range(100):
            if s.client.messages:
                break
            await asyncio.sleep(0.05)
        messages = [m.message for m in s.client.messages]
        assert any("selct" in m and "pyproject.toml" in m for m in messages), messages


async def test_initialization_options_select_and_ignore(tmp_path):
    uri = (tmp_path / "model.py").as_uri()
    options = {"ignore": ["IPL002"]}
    async with session(tmp_path, initialization_options=options) as s:
        s.open(uri, SOURCE)
        assert _codes(await s.diagnostics_at(uri, 1)) == ["IPL001"]


async def test_workspace_configuration_is_pulled_and_refreshed(tmp_path):
    _write_config(tmp_path, 'ignore = ["IPL002"]\n')
    uri = (tmp_path / "model.py").as_uri()
    configuration = {"inplace-lint": {"select": ["IPL002"]}}
    async with session(tmp_path, configuration=configuration) as s:
        s.open(uri, SOURCE)
        # the editor's select is a layer over the file's ignore, as --select is on the CLI
        await s.settle(uri)
        assert _codes(s.published[uri][-1].diagnostics) == ["IPL002"]
        seen = s.count(uri)
        s.client.set_configuration({"inplace-lint": {"ignore": ["IPL001"]}})
        s.client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings=None)
        )
        assert _codes(await s.diagnostics(uri, after=seen)) == []
