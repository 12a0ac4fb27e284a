"""A pre-hook refusing one file of many, in both eras: the refusal names it and says how to reach the rest."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ClientFactory, error_code, structured, text_of
from tests.tools.test_hooks import hook_config

pytestmark = pytest.mark.anyio


async def test_a_project_replace_a_pre_hook_stops_names_the_file_and_how_to_change_the_rest(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    deny = [{"path": "b.txt", "hooks": [{"type": "command", "command": "echo protected >&2; exit 2"}]}]
    for name in "abc":
        (root / f"{name}.txt").write_bytes(b"foo\n")
    async with connect(hooks_config=hook_config(tmp_path, {"pre-edit": deny})) as client:
        refused = await client.call_tool("project_replace", {"find": "foo", "replace": "bar"})
        rest = await client.call_tool("project_replace", {"find": "foo", "replace": "bar", "exclude_paths": ["b.txt"]})
    assert error_code(refused) == "hook_denied"
    assert "denied project_replace on b.txt" in text_of(refused)
    assert "Nothing was written" not in text_of(refused)
    assert "exclude_paths=['b.txt']" in text_of(refused)
    assert structured(rest)["total_replacements"] == 1
    assert [(root / f"{name}.txt").read_bytes() for name in "abc"] == [b"bar\n", b"foo\n", b"bar\n"]
