"""A pre-hook's modified_content that cannot be stored, in both eras: the refusal says it is the hook's doing."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ClientFactory, error_code, text_of
from tests.tools.test_hooks import hook_config, python_hook

pytestmark = pytest.mark.anyio


async def test_a_pre_hooks_content_above_the_size_limit_is_refused_as_the_hooks(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    big = python_hook(tmp_path, "big", 'print(json.dumps({"modified_content": "x" * 5000}))')
    config = hook_config(tmp_path, {"pre-write": [{"hooks": [{"type": "command", "command": big}]}]})
    (root / "a.txt").write_bytes(b"old\n")
    async with connect(hooks_config=config, max_file_size=1000) as client:
        result = await client.call_tool("write_file", {"path": "a.txt", "content": "small\n"})
    assert error_code(result) == "too_large"
    assert "The pre-hook" in text_of(result)
    assert "modified_content" in text_of(result)
    assert (root / "a.txt").read_bytes() == b"old\n"


async def test_a_pre_hooks_content_the_files_encoding_cannot_store_is_refused_as_the_hooks(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    cjk = python_hook(tmp_path, "cjk", 'print(json.dumps({"modified_content": "\\u65e5\\u672c\\n"}))')
    config = hook_config(tmp_path, {"pre-write": [{"hooks": [{"type": "command", "command": cjk}]}]})
    original = "café olé\n".encode("latin-1") * 20
    (root / "l1.txt").write_bytes(original)
    async with connect(hooks_config=config) as client:
        result = await client.call_tool("write_file", {"path": "l1.txt", "content": "café\n" * 20})
    assert error_code(result) == "encoding_error"
    assert "The pre-hook" in text_of(result)
    assert (root / "l1.txt").read_bytes() == original
